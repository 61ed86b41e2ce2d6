import { randomBytes, randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { AgentManifest, ManifestIssue } from "./agents/index.js";
import { AgentCatalogue } from "./agents/catalogue.js";
import { AgentInvalidError } from "./agents/issues.js";
import { AgentStore } from "./agents/store.js";
import { openAuditLog, type AuditLog } from "./audit/index.js";
import { ConflictError, InvalidInputError, NotFoundError } from "./errors.js";
import { ApprovalStore } from "./policy/approvals/index.js";
import type { PolicyLayers } from "./policy/engine.js";
import { defaultBuildCacheDir, pluginSourceDirs, PROJECT_ROOT } from "./plugins/locations.js";
import {
  PluginInstaller,
  pluginMigrations,
  PluginRegistry,
  type InstalledPlugin,
  type InstallResult,
  type ChangeOptions,
  type InstallOptions,
  type InstallSourceOptions,
  type UpgradeOptions,
} from "./plugins/install/index.js";
import { auditUnboundCalls } from "./runs/unbound-calls.js";
import { callTimeoutNotes } from "./runs/grant-limits.js";
import { CodeSeal } from "./plugins/seal.js";
import { agentMounts, defaultStoreUrl, parseInlineAgent, parseTaskGrants } from "./runs/agent-setup.js";
import { agentTools, resolveToolName } from "./runs/agent-tools.js";
import { nodeId, parseNodeId, processAlive, safeHostname } from "./runs/node-id.js";
import { installOwnPlugins } from "./plugins/install/own-plugins.js";
import { RunRecords, runMigrations, type RunRecord } from "./runs/records.js";
import { RunDriver } from "./runs/driver.js";
import { RunJournal, runJournalMigrations } from "./runs/journal.js";
import { failureOf } from "./runs/errors.js";
import { RunEventLog } from "./runs/event-log.js";
import { Run, type RunServices } from "./runs/run.js";
import type { RuntimeOptions, StartRunOptions, SubmitRunOptions } from "./options.js";
import { observeRun } from "./telemetry/run-spans.js";
import { callerTraceId } from "./telemetry/caller-trace.js";
import type { ApprovalNeeded, PluginHandle, ToolInfo } from "./runs/types.js";
import { Sandbox, type SandboxPlugin } from "./sandbox/index.js";
import { applyMigrations, openStore, StoreError, systemClock, type Clock, type Store } from "./store/index.js";
import { openSecretStore, type SecretStore } from "./secrets/index.js";
import { probeSandbox, type SandboxInfo } from "../host-proxies/shell/index.js";
import { McpClient } from "./mcp-client/index.js";
import { VERSION } from "./cli/version.js";
import type { MountHostGuard } from "../host-proxies/fs/index.js";
import { closeIdleRoots } from "../host-proxies/fs/index.js";
import { runtimeMountGuard } from "./runs/mount-guard.js";
import { kvMigrations } from "../host-proxies/kv/index.js";
import { createBackends, type Backends } from "./runs/backends.js";
import { Conversations } from "./runs/conversations.js";
import { openRuntimeScheduler, type Scheduler } from "./schedules/index.js";
import { cancelSubAgentRuns, endedSubAgent, spawnSubAgent, subAgentTools } from "./runs/sub-agents.js";
import { defaultSkillsDir, SkillsCache, skillsFor, skillsZone } from "./skills/index.js";
import { initialLoopState, LoopStates, RunLoop } from "./runs/loop/index.js";
import { createProvider } from "./llm/index.js";
import type { MemoryStore } from "./memory/index.js";
import { lazyMemoryStore, MEMORY_PLUGIN, MemoryTrust, memoryTrustMigrations, runMemoryZone } from "./runs/run-memory.js";

export type { RuntimeOptions, StartRunOptions, SubmitRunOptions } from "./options.js";

/**
 * The core every front end wraps (HTTP API, CLI, tests): loaded plugins and agents, the store
 * with its audit log and approvals, a sandbox, and runs started on it.
 */
export class Runtime {
  readonly dataDir: string;
  /** What no mount may name (forbidden-roots.ts): the system's roots and this runtime's own state. */
  readonly mountGuard: MountHostGuard;
  readonly sandbox: Sandbox;
  readonly store: Store;
  readonly audit: AuditLog;
  readonly approvals: ApprovalStore;
  readonly records: RunRecords;
  readonly secrets: SecretStore;
  readonly clock: Clock;
  readonly installer: PluginInstaller;
  /** This process's id in run leases (several runtimes may share one store). */
  readonly node = nodeId();
  #scheduler: Scheduler | undefined;
  readonly events: RunEventLog;
  /** Conversations: what a person and an agent said over several model-driven runs. */
  readonly conversations: Conversations;
  readonly #loopStates: LoopStates;
  #loop: RunLoop | undefined;
  #driver!: RunDriver;
  #leaseMs = 15_000;
  #plugins: Map<string, PluginHandle>;
  #tools: ToolInfo[];
  #installed: InstalledPlugin[] = [];
  /** The registry's fingerprint when `#plugins` was last read from it. */
  #pluginsSeen = "";
  #pluginsSync: Promise<void> | undefined;
  #onRun: RuntimeOptions["onRun"];
  #onProgress: RuntimeOptions["onProgress"];
  /** Agents from the agents folder and those defined in code (`defineAgent`). */
  #agents: Map<string, AgentManifest>;
  /** Agents stored through the API (every runtime on the store sees them); never shadow the above. */
  #storedAgents = new Map<string, AgentManifest>();
  #agentStore!: AgentStore;
  /** Agent files and stored agents, parsed when they change. */
  #catalogue!: AgentCatalogue;
  /** Agents given in code (`defineAgent`): they shadow files and stored agents of their name. */
  #codeAgents = new Map<string, AgentManifest>();
  #agentsDir = "";
  #skillsDir = defaultSkillsDir();
  #skills = new SkillsCache(this.#skillsDir);
  #runs = new Map<string, Run>();
  /** Work set off by runs' ends (`#afterEnd`), awaited when closing. */
  #afterEnds = new Set<Promise<void>>();
  #closed = false;
  /** Every secret value known to this process, shared with the audit log's redaction. */
  #secretList: { current: string[] } = { current: [] };
  #backends!: Backends;
  #shellSandbox: SandboxInfo = { available: false, bwrapPath: "", reason: "not probed yet" };
  #memory!: () => Promise<MemoryStore>;
  #memoryTrust!: MemoryTrust;
  #mcpClient!: McpClient;

  private constructor(parts: {
    dataDir: string;
    mountGuard: MountHostGuard;
    sandbox: Sandbox;
    store: Store;
    audit: AuditLog;
    approvals: ApprovalStore;
    secrets: SecretStore;
    clock: Clock;
    installer: PluginInstaller;
    agents: Map<string, AgentManifest>;
  }) {
    this.dataDir = parts.dataDir;
    this.mountGuard = parts.mountGuard;
    this.sandbox = parts.sandbox;
    this.store = parts.store;
    this.audit = parts.audit;
    this.approvals = parts.approvals;
    this.records = new RunRecords(parts.store);
    this.secrets = parts.secrets;
    this.clock = parts.clock;
    this.installer = parts.installer;
    this.events = new RunEventLog(parts.store);
    this.conversations = new Conversations(parts.store, { now: () => parts.clock.now() });
    this.#loopStates = new LoopStates(parts.store, { now: () => parts.clock.now(), node: this.node });
    this.#plugins = new Map();
    this.#tools = [];
    this.#agents = parts.agents;
  }

  static async create(options: RuntimeOptions): Promise<Runtime> {
    const dataDir = resolve(options.dataDir);
    await mkdir(dataDir, { recursive: true });
    const clock = options.clock ?? systemClock;
    const mountGuard = runtimeMountGuard({
      dataDir,
      storeUrl: options.storeUrl,
      secretKeyFile: options.secretKeyFile,
      buildCacheDir: options.buildCacheDir ?? defaultBuildCacheDir(),
      mailDir: options.mail?.backend === "maildir" ? options.mail.dir : undefined,
      calendarDir: options.calendar?.backend === "ics" ? options.calendar.dir : undefined,
    });
    const store = options.store ?? (await openStore({ url: options.storeUrl ?? defaultStoreUrl(dataDir), authToken: options.storeAuthToken, clock }));
    if (store.readOnly === true) {
      await store.close();
      // Said at start, not at the first run: a runtime writes runs, approvals and the audit log.
      throw new StoreError(
        "store_read_only",
        `store ${store.location} is read-only (no write permission, a read-only mount, or opened read-only): a runtime must write runs and the audit log; make it writable, or read it without a runtime: clawhive audit verify, audit tail, runs list, approvals list`,
      );
    }
    const sandbox = new Sandbox(options.sandbox);
    try {
      await applyMigrations(store, runMigrations, { clock });
      await applyMigrations(store, runJournalMigrations, { clock });
      await applyMigrations(store, kvMigrations, { clock });
      await applyMigrations(store, memoryTrustMigrations, { clock });
      await applyMigrations(store, pluginMigrations, { clock });
      const secrets = await openSecretStore(store, {
        dataDir,
        keyFromEnv: options.secretKey ?? process.env.CLAWHIVE_SECRET_KEY,
        ...(options.secretKeyFile ? { keyFile: options.secretKeyFile } : {}),
        clock,
      });
      // The audit's redaction reads this list synchronously: it is kept current by the runtime.
      const values = { current: await secrets.values() };
      const audit = await openAuditLog(store, { clock, redaction: { secrets: () => values.current } });
      sandbox.observe(auditUnboundCalls(audit, options.onProgress ? { onError: (error) => options.onProgress!(`audit of an unbound host call: ${error.message}`) } : {}));
      const approvals = await ApprovalStore.open(store, { clock });
      const records = new RunRecords(store);
      const installer = new PluginInstaller({
        registry: new PluginRegistry(store, { clock }),
        sandbox,
        cacheDir: options.buildCacheDir ?? defaultBuildCacheDir(),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        runsUsing: (name) => records.unfinishedUsing(name),
        // Cached builds are trusted under the secret key's seal only; every plugin change is audited.
        seal: CodeSeal.fromSecrets(secrets),
        audit: (event) => audit.appendPluginEvent(event),
      });
      await installOwnPlugins(installer, options.pluginDirs ?? (await pluginSourceDirs()), options.onProgress);
      const runtime = new Runtime({ dataDir, mountGuard, sandbox, store, audit, approvals, secrets, clock, installer, agents: new Map() });
      runtime.#onRun = options.onRun;
      runtime.#memory = lazyMemoryStore(store, { clock, embeddings: options.memory?.embeddings, secretValue: (name) => runtime.secretValue(name) });
      // Only the first-party memory plugin's output leaves a run trusted: one a person installed under its name does not.
      runtime.#memoryTrust = new MemoryTrust(store, {
        audit,
        clock,
        trustedPlugin: () => (runtime.#installed.some((p) => p.name === MEMORY_PLUGIN && p.firstParty) ? MEMORY_PLUGIN : undefined),
      });
      runtime.#onProgress = options.onProgress;
      runtime.#agentStore = await AgentStore.open(store, { clock });
      runtime.#agentsDir = options.agentsDir ?? join(PROJECT_ROOT, "capabilities");
      runtime.#catalogue = new AgentCatalogue({ dir: runtime.#agentsDir, dataDir, hostGuard: mountGuard, stored: runtime.#agentStore });
      runtime.#skillsDir = options.skillsDir ?? defaultSkillsDir();
      runtime.#skills = new SkillsCache(runtime.#skillsDir);
      await runtime.refreshAgents();
      for (const note of callTimeoutNotes(runtime.agents(), sandbox.options.maxCallTimeoutMs)) options.onProgress?.(note);
      runtime.#leaseMs = options.runLeaseMs ?? 15_000;
      runtime.#driver = new RunDriver({
        records: runtime.records,
        node: runtime.node,
        leaseMs: runtime.#leaseMs,
        now: () => clock.now(),
        open: (id) => runtime.resumeRun(id),
        live: () => runtime.#runs.values(),
        loop: runtime.#runLoop(options.modelProvider, options.llm),
        claim: (id, holder) => runtime.#claim(id, holder.node),
        abandon: (id, end) => runtime.#abandon(id, end),
        journal: { store: new RunJournal(store), audit: runtime.audit },
        holderGone: (holder) => {
          const parsed = parseNodeId(holder);
          return parsed !== undefined && parsed.host === safeHostname() && !processAlive(parsed.pid);
        },
        ...(options.onProgress ? { onError: (error, runId) => options.onProgress!(`run ${runId}: ${(error as Error).message}`) } : {}),
      });
      runtime.#driver.start();
      runtime.#scheduler = await openRuntimeScheduler(runtime, {
        ...(options.onProgress ? { onError: (error: unknown) => options.onProgress!(`scheduler: ${(error as Error).message}`) } : {}),
        ...(options.scheduleClaimTimeoutMs === undefined ? {} : { claimTimeoutMs: options.scheduleClaimTimeoutMs }),
      });
      // Schedules fire from long-lived runtimes (serve); a CLI command's runtime only reads them.
      if (options.runSchedules) runtime.#scheduler.start();
      await runtime.refreshPlugins();
      runtime.#secretList = values;
      runtime.#shellSandbox = await probeSandbox();
      runtime.#mcpClient = await McpClient.open({
        store,
        clock,
        sandbox: () => runtime.#shellSandbox,
        hostGuard: mountGuard,
        secretValue: (name) => runtime.secretValue(name),
        version: VERSION,
        ...options.mcpClient,
      });
      runtime.#backends = await createBackends({ dataDir, ...(options.mail ? { mail: options.mail } : {}), ...(options.calendar ? { calendar: options.calendar } : {}) }, {
        value: (name) => runtime.secretValue(name),
      });
      return runtime;
    } catch (error) {
      await sandbox.close();
      await store.close();
      throw error;
    }
  }

  /** Every tool of every loaded plugin. */
  tools(): readonly ToolInfo[] {
    return this.#tools;
  }

  /** The MCP client: agents' MCP servers, their pinned definitions, review and accept. */
  get mcpClient(): McpClient {
    return this.#mcpClient;
  }

  /** The tools `agent`'s runs are offered: its plugins' and its accepted MCP servers' (`agentTools`). */
  agentTools(agent: AgentManifest): ToolInfo[] {
    return agentTools(agent, { plugins: this.#plugins, tools: this.#tools, mcpPins: this.#mcpClient?.pins });
  }

  /** The plugins this runtime has loaded (as of the last `refreshPlugins`). */
  plugins(): Array<{ name: string; version: string; description: string; publisher: string; format: string; sha256: string }> {
    return this.#installed.map(({ manifest, blobSha256 }) => ({
      name: manifest.name,
      version: manifest.version,
      description: manifest.description,
      publisher: manifest.publisher,
      format: manifest.format,
      sha256: blobSha256,
    }));
  }

  /** Installs a plugin (a folder, .tgz, .wasm with manifest, or https URL with sha256) and loads it. */
  async installPlugin(source: string, options: InstallSourceOptions & InstallOptions = {}): Promise<InstallResult> {
    const result = await this.installer.install(source, options);
    await this.refreshPlugins();
    return result;
  }

  /** Upgrades installed plugin `name`; a widening upgrade needs `accept` (else UpgradeNeedsAcceptance with the diff). */
  async upgradePlugin(name: string, source: string, options: UpgradeOptions & ChangeOptions = {}): Promise<InstallResult> {
    const result = await this.installer.upgrade(name, source, options);
    await this.refreshPlugins();
    return result;
  }

  /** Removes plugin `name`; refused while an unfinished run uses it. */
  async removePlugin(name: string, options: { by?: string } = {}): Promise<InstalledPlugin> {
    const removed = await this.installer.remove(name, options);
    await this.refreshPlugins();
    return removed;
  }

  /**
   * Loads what the store says is installed, when it changed since the last look (another
   * process may have installed, upgraded or removed a plugin). Runs already started keep the
   * plugins they started with.
   */
  refreshPlugins(): Promise<void> {
    this.#pluginsSync ??= this.#syncPlugins().finally(() => (this.#pluginsSync = undefined));
    return this.#pluginsSync;
  }

  async #syncPlugins(): Promise<void> {
    const seen = await this.installer.registry.fingerprint();
    if (seen === this.#pluginsSeen) return;
    const installed = await this.installer.registry.list();
    const plugins = new Map<string, PluginHandle>();
    const tools: ToolInfo[] = [];
    for (const entry of installed) {
      // Compiled when a run first uses it: a runtime with many plugins installed holds the code
      // of those in use only.
      let loading: Promise<SandboxPlugin> | undefined;
      plugins.set(entry.name, {
        manifest: entry.manifest,
        load: () => {
          loading ??= this.installer.load(entry, this.sandbox).then(
            ({ plugin }) => plugin,
            (error: unknown) => {
              loading = undefined;
              throw error;
            },
          );
          return loading;
        },
      });
      for (const t of entry.tools) {
        tools.push({ plugin: entry.name, name: t.name, qualifiedName: `${entry.name}.${t.name}`, description: t.description, inputSchema: t.inputSchema, capabilities: [...t.capabilities], risk: t.risk });
      }
    }
    // New objects, so runs already built keep the map they were given.
    this.#plugins = plugins;
    this.#tools = tools;
    this.#installed = installed;
    this.#pluginsSeen = seen;
  }

  agents(): AgentManifest[] {
    return [...new Map([...this.#storedAgents, ...this.#agents]).values()];
  }

  /** The agents stored through the API, with their source text. */
  get agentStore(): AgentStore {
    return this.#agentStore;
  }

  /** The folder skills (`<name>/SKILL.md`) are read from. */
  get skillsDir(): string {
    return this.#skillsDir;
  }

  /** The folder agent manifest files are read from. */
  get agentsDir(): string {
    return this.#agentsDir;
  }

  /**
   * Re-reads the agent files and the agents stored through the API that changed since the last
   * look (an edited file, another process's put or delete); unchanged ones are not parsed again.
   * A stored agent never shadows a file or code agent of the same name. One that does not pass
   * is reported once and left out: runs of it are refused with its problems (see `#agent`).
   */
  async refreshAgents(): Promise<void> {
    const fresh = await this.#catalogue.refresh(this.#codeAgents);
    for (const p of fresh) this.#onProgress?.(`agent not loaded: ${p.file}: ${p.path}: ${p.message}`);
    this.#agents = new Map([...this.#catalogue.files, ...this.#codeAgents]);
    this.#storedAgents = new Map([...this.#catalogue.stored].filter(([name]) => !this.#agents.has(name)));
    // Pins accepted on another node (or by another process) are offered from the next run on.
    await this.#mcpClient?.refresh();
  }

  /** Agents whose manifest does not pass, with its problems (they cannot run until fixed). */
  invalidAgents(): ReadonlyMap<string, readonly ManifestIssue[]> {
    return this.#catalogue.invalid;
  }

  /** How many agent sources were parsed since start: unchanged ones are not parsed again. */
  get agentParses(): number {
    return this.#catalogue.parses;
  }

  /** Adds (or replaces) an agent given as an object, validated like a manifest file. */
  async defineAgent(manifest: unknown): Promise<AgentManifest> {
    const parsed = await parseInlineAgent(manifest, { dataDir: this.dataDir, hostGuard: this.mountGuard });
    this.#codeAgents.set(parsed.name, parsed);
    this.#agents.set(parsed.name, parsed);
    this.#storedAgents.delete(parsed.name);
    return parsed;
  }

  /**
   * Starts a run of `agent`. `grants` is the task's narrower request (validated to lie within
   * the agent's grant); its instances are created on first use and bound to exactly these.
   */
  async startRun(options: StartRunOptions): Promise<Run> {
    if (this.#closed) throw new ConflictError("runtime_closed", "the runtime is closed");
    await this.refreshPlugins();
    await this.refreshAgents();
    const agent = this.#agent(options.agent);
    const taskGrants = options.grants === undefined ? undefined : parseTaskGrants(options.grants, agent, { hostGuard: this.mountGuard });
    const id = options.runId ?? `run_${randomUUID()}`;
    const traceId = options.traceId ?? callerTraceId() ?? randomBytes(16).toString("hex");
    const taskId = `task_${randomUUID()}`;
    await this.#createRecord(options.runId, {
      id,
      traceId,
      taskId,
      parentRunId: options.parentRunId ?? null,
      agent: agent.name,
      plugins: agent.plugins.map((p) => p.name),
      task: options.task ?? null,
      taskGrants: taskGrants ?? null,
      createdAt: this.clock.now(),
      ownerToken: options.ownerToken ?? null,
      plan: options.plan ?? null,
      conversationId: options.conversationId ?? null,
      node: this.node,
      leaseUntil: this.clock.now() + this.#leaseMs,
    });
    let parents: ParentLayer[];
    try {
      parents = await this.#parentLayers(options.parentRunId ?? null);
    } catch (error) {
      // Recorded but never built: it ends here rather than stay active with nothing driving it.
      await this.#abandon(id, { reason: "failed", ...failureOf(error) }).catch(() => undefined);
      throw error;
    }
    return this.#track(this.#build({ id, traceId, taskId, parentRunId: options.parentRunId ?? null, agent, taskGrants, parents }), "started");
  }

  /** Records a new run; a caller-chosen id already taken is `run_exists`, not a store error. */
  async #createRecord(chosenId: string | undefined, record: Parameters<RunRecords["create"]>[0]): Promise<void> {
    try {
      await this.records.create(record);
    } catch (error) {
      if (chosenId !== undefined && error instanceof StoreError && error.code === "store_constraint" && (await this.records.get(chosenId)) !== undefined) {
        throw new ConflictError("run_exists", `run ${chosenId}: already started; it is not started twice`);
      }
      throw error;
    }
  }

  /**
   * Starts a run of explicit ToolCalls (`toolCalls`, run in order) and drives it: `settled`
   * resolves when the run ends or waits for a person. A waiting run continues, on this node or
   * another sharing the store, once its approval is decided.
   */
  async submitRun(options: SubmitRunOptions): Promise<{ run: Run; settled: Promise<void>; conversationId?: string }> {
    if (options.toolCalls === undefined || options.toolCalls.length === 0) return this.#submitModelRun(options);
    if (options.conversationId !== undefined) {
      throw new InvalidInputError("conversation_id: only a run the model drives (task text, no tool_calls) continues a conversation", { field: "conversation_id" });
    }
    await this.refreshPlugins();
    await this.refreshAgents();
    const agent = this.#agent(options.agent);
    const tools = this.agentTools(agent);
    const plan = options.toolCalls.map((call, i) => ({ name: resolveToolName(tools, call.name, `tool_calls[${i}].name`), input: call.input ?? {} }));
    const run = await this.startRun({ ...options, plan });
    return { run, settled: this.#driver.drive(run) };
  }

  // --- model-driven runs (issue 8): the loop in runs/loop drives a run with task text and no plan.

  /**
   * Starts a run the agent's model drives: the task is the first user message (after the
   * conversation's history when `conversationId` continues one; else a new conversation is
   * started, so the person can continue it). `settled` resolves when the run ends or waits.
   */
  async #submitModelRun(options: SubmitRunOptions): Promise<{ run: Run; settled: Promise<void>; conversationId: string }> {
    if (options.task === undefined || options.task.trim() === "") {
      throw new InvalidInputError("task: expected the task text for the model (or tool_calls for a run of explicit calls)", { field: "task" });
    }
    await this.refreshAgents();
    const agent = this.#agent(options.agent);
    // Checked before a conversation is started for it (startRun checks it again).
    if (options.grants !== undefined) parseTaskGrants(options.grants, agent, { hostGuard: this.mountGuard });
    if (options.runId !== undefined && (await this.records.get(options.runId)) !== undefined) {
      throw new ConflictError("run_exists", `run ${options.runId}: already started; it is not started twice`);
    }
    const conversation = options.conversationId === undefined
      ? await this.conversations.create(agent.name, { ownerToken: options.ownerToken ?? null })
      : await this.conversations.forRun(options.conversationId, { agent: agent.name, ownerToken: options.ownerToken ?? null });
    const { toolCalls: _none, ...start } = options;
    const run = await this.startRun({ ...start, conversationId: conversation.id });
    try {
      await this.#loopStates.put(run.id, initialLoopState(options.task, conversation.id));
    } catch (error) {
      // Without its state no loop would ever drive it: it ends failed, saying why.
      await run.fail(failureOf(error)).catch(() => undefined);
      throw error;
    }
    return { run, settled: this.#driver.drive(run), conversationId: conversation.id };
  }

  #runLoop(modelProvider: RuntimeOptions["modelProvider"], llm: RuntimeOptions["llm"] = {}): RunLoop {
    const retry = { ...(llm.timeoutMs === undefined ? {} : { timeoutMs: llm.timeoutMs }), ...(llm.maxAttempts === undefined ? {} : { maxAttempts: llm.maxAttempts }) };
    return (this.#loop = new RunLoop({
      states: this.#loopStates,
      conversations: this.conversations,
      audit: this.audit,
      node: this.node,
      now: () => this.clock.now(),
      // The key is read through secretValue on every call: never from the environment.
      skills: async (run) => {
        const { skills } = await this.#skills.load();
        return skillsZone(skillsFor(run.agent, { skills, tools: run.tools, taskGrants: run.layers.task }).skills);
      },
      memory: (run, task) => runMemoryZone(run, { dataDir: this.dataDir, task, memory: this.#memory, markTainted: () => this.#memoryTrust.mark(run.id) }),
      subAgents: {
        tools: async (run) => subAgentTools(run.agent, { agents: this.agents(), taskGrants: run.layers.task }),
        spawn: (run, spawn) => spawnSubAgent(this, run, spawn),
        ended: (childRunId) => endedSubAgent(this.records, childRunId),
      },
      provider:
        modelProvider ??
        ((agent) => createProvider(agent.model, { secretValue: (name) => this.secretValue(name), ...(llm.proxyUrl === undefined ? {} : { proxyUrl: llm.proxyUrl }), retry })),
    }));
  }

  /** The runtime's long-term memory (opened on first use; hybrid search when an embedder is configured). */
  memory(): Promise<MemoryStore> {
    return this.#memory();
  }

  /** Schedules that start runs of this runtime: once at a time, or on a cron expression. */
  get scheduler(): Scheduler {
    if (!this.#scheduler) throw new ConflictError("runtime_starting", "the runtime's scheduler is not open yet");
    return this.#scheduler;
  }

  /** Whether run `id` is one the driver carries on (a plan of tool calls, or the model loop). */
  async isDriven(id: string): Promise<boolean> {
    const record = await this.records.get(id);
    return record !== undefined && (record.plan !== null || (this.#loop !== undefined && (await this.#loop.owns(id))));
  }

  /**
   * Runs `work` as run `id`'s driver: meanwhile the driver's tick does not continue the run
   * (an MCP session replays its own ToolCalls once their approvals are decided).
   */
  holdRun<T>(id: string, work: () => Promise<T>): Promise<T> {
    return this.#driver.hold(id, work);
  }

  /** Continues run `id` here if this node may drive it (after its approval was decided). */
  continueRun(id: string): Promise<boolean> {
    return this.#driver.continue(id);
  }

  /** Cancels run `id`: now if this node drives it, else at its driver's next tick. */
  async cancelRun(id: string): Promise<RunRecord> {
    const record = await this.records.get(id);
    if (!record) throw new NotFoundError(`no run ${id}`);
    if (record.status === "ended") throw new ConflictError("run_ended", `run ${id} has already ended (${record.endReason ?? "completed"})`);
    await this.#driver.cancel(id);
    // At once, whichever node drives it: a person can no longer approve what the run asked for.
    await this.approvals.withdrawForRun(id, `run ${id} was cancelled`);
    if (!this.#runs.has(id)) await this.#cancelUndriven(id);
    // Cancelling a parent cancels its sub-agents, down the chain.
    await cancelSubAgentRuns(this, id);
    return (await this.records.get(id))!;
  }

  /**
   * A run no node holds (it waits for a person, and the node that drove it closed) is ended
   * here; one another live node holds ends at that node's next tick.
   */
  async #cancelUndriven(id: string): Promise<void> {
    const record = await this.records.get(id);
    // Held by this node yet not live here: it is ending now.
    if (!record || record.status === "ended" || record.node === this.node) return;
    try {
      await (await this.resumeRun(id)).cancel();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== "run_leased" && code !== "run_ended") throw error;
    }
  }

  /**
   * Waits until the work runs' ends have set off here is done: a waiting parent continued (to
   * its own end or next wait), sub-agent runs cancelled. For a short-lived process (a CLI
   * command) that should not close while a parent it could continue is half way.
   */
  async idle(): Promise<void> {
    while (this.#afterEnds.size > 0) await Promise.allSettled([...this.#afterEnds]);
  }

  /** One round of the driver's background work (lease renewal, decided approvals, cancellations). */
  driverTick(): Promise<void> {
    return this.#driver.tick();
  }

  /** Stores a secret (encrypted) and adds its value to what the audit log redacts. */
  async setSecret(name: string, value: string): Promise<void> {
    await this.secrets.set(name, value);
    await this.refreshSecrets();
  }

  async removeSecret(name: string): Promise<boolean> {
    const removed = await this.secrets.remove(name);
    await this.refreshSecrets();
    return removed;
  }

  /** Re-reads every secret value (another process may have changed them). */
  async refreshSecrets(): Promise<void> {
    this.#secretList.current = await this.secrets.values();
  }

  /** The value of secret `name`, for a host proxy on the main thread; it is redacted from now on. */
  async secretValue(name: string): Promise<string> {
    const value = await this.secrets.get(name);
    if (!this.#secretList.current.includes(value)) this.#secretList.current = [...this.#secretList.current, value];
    return value;
  }

  /** A live run of this process, or one rebuilt from the store (after a restart, or another node's). */
  async resumeRun(id: string): Promise<Run> {
    const live = this.#runs.get(id);
    if (live) return live;
    await this.refreshPlugins();
    await this.refreshAgents();
    const record = await this.records.get(id);
    if (!record) throw new NotFoundError(`no run ${id}`);
    if (record.status === "ended") throw new ConflictError("run_ended", `run ${id} has ended`);
    const now = this.clock.now();
    if (!(await this.#claim(id, record.node))) {
      throw new ConflictError(
        "run_leased",
        `run ${id} is driven by another runtime (${record.node}) until ${new Date(record.leaseUntil ?? now).toISOString()}; it continues there once its approval is decided`,
      );
    }
    const agent = this.#knownAgent(record.agent, id);
    const taskGrants = record.taskGrants === null ? undefined : parseTaskGrants(record.taskGrants, agent, { hostGuard: this.mountGuard });
    const parents = await this.#parentLayers(record.parentRunId);
    const lastEventSeq = await this.events.lastSeq(id);
    const run = this.#build({ id, traceId: record.traceId, taskId: record.taskId, parentRunId: record.parentRunId, agent, taskGrants, parents, status: record.status, pending: record.pending, lastEventSeq });
    return this.#track(run, "resumed");
  }

  getRun(id: string): Run | undefined {
    return this.#runs.get(id);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Model calls in flight are aborted, so closing does not wait for a model to answer.
    this.#loop?.close();
    await this.#scheduler?.stop();
    await Promise.allSettled(this.#afterEnds);
    await this.#driver.stop();
    // Live runs are left as they are in the store, let go of so that another process (or a
    // restart) may take them over at once.
    for (const run of this.#runs.values()) {
      await run.flushEvents();
      if (!run.ended) await this.records.release(run.id, this.node).catch(() => undefined);
    }
    this.#runs.clear();
    await this.events.flush().catch(() => undefined);
    await this.#mcpClient?.close();
    await this.sandbox.close();
    // Mount roots kept open for later runs (host-proxies/fs/shared-roots.ts); those in use by
    // another runtime of this process stay.
    await closeIdleRoots();
    await this.audit.close();
    await this.store.close();
  }

  /** Takes or renews this node's lease on run `id` (see RunDriverOptions.claim). */
  async #claim(id: string, holder: string | null): Promise<boolean> {
    const now = this.clock.now();
    return (await this.records.claim(id, this.node, { now, until: now + this.#leaseMs })) || this.#takeOverFromDead(id, holder, now);
  }

  /**
   * A lease held by a process of this machine that no longer exists (killed, crashed) is taken
   * over at once rather than after it runs out: nothing can still be driving the run.
   */
  async #takeOverFromDead(id: string, holder: string | null, now: number): Promise<boolean> {
    const parsed = holder ? parseNodeId(holder) : undefined;
    if (!parsed || parsed.host !== safeHostname() || processAlive(parsed.pid)) return false;
    return this.records.takeOver(id, { from: holder!, to: this.node, until: now + this.#leaseMs });
  }

  /** The agent of a run to continue here; `agent_unknown` when this node does not know it (removed, or defined on another node only). */
  #knownAgent(name: string, runId: string): AgentManifest {
    const agent = this.#agents.get(name) ?? this.#storedAgents.get(name);
    const invalid = this.#catalogue.lookup(name);
    if (!agent && invalid !== undefined && "issues" in invalid) throw new AgentInvalidError(name, invalid.issues, { runId });
    if (!agent) throw new ConflictError("agent_unknown", `run ${runId}: its agent ${name} is not known to this runtime (removed, or defined on another node only); the run cannot continue`);
    return agent;
  }

  /**
   * Ends run `id` from its record alone, when no Run object can (see RunDriverOptions.abandon):
   * taken first (a live holder keeps it), its approvals withdrawn, a `finish` Step and its end
   * added to its events, its end recorded with the reason.
   */
  async #abandon(id: string, end: { reason: "failed" | "cancelled"; code: string; message: string }): Promise<void> {
    const record = await this.records.get(id);
    if (!record || record.status === "ended" || !(await this.#claim(id, record.node))) return;
    const now = this.clock.now();
    await this.approvals.withdrawForRun(id, `run ${id} ended (${end.reason}) before the approval was used`);
    const seq = await this.events.lastSeq(id);
    this.events.append(id, seq + 1, { type: "step", stepId: "finish", action: "finish", usage: null, reason: end.code, at: now });
    this.events.append(id, seq + 2, { type: "run-ended", reason: end.reason, at: now });
    // The events are a view of the run: its end is recorded even if they could not be written.
    await this.events.flush().catch(() => undefined);
    await this.records.end(id, record.report, now, end.reason, `the run ${end.reason === "cancelled" ? "was cancelled" : "failed"}: ${end.code}: ${end.message}`);
  }

  #agent(name: string): AgentManifest {
    if (typeof name !== "string" || name.length === 0) throw new InvalidInputError("agent: expected an agent name", { field: "agent" });
    const agent = this.#agents.get(name) ?? this.#storedAgents.get(name);
    if (agent) return agent;
    const invalid = this.#catalogue.lookup(name);
    if (invalid !== undefined && "issues" in invalid) throw new AgentInvalidError(name, invalid.issues);
    // Never the list of agents: the caller may be a client allowed to see only some of them.
    throw new NotFoundError(`no agent ${name}: check the name (GET /v1/agents lists the agents you may see)`);
  }

  #build(input: {
    id: string;
    traceId: string;
    taskId: string;
    parentRunId: string | null;
    agent: AgentManifest;
    taskGrants: ReturnType<typeof parseTaskGrants> | undefined;
    parents: ParentLayer[];
    status?: Run["status"];
    pending?: Run["pending"];
    lastEventSeq?: number;
  }): Run {
    const { mounts, allowSensitive } = agentMounts(input.agent);
    const services: RunServices = {
      node: this.node,
      sandbox: this.sandbox,
      plugins: this.#plugins,
      audit: this.audit,
      approvals: this.approvals,
      records: this.records,
      now: () => this.clock.now(),
      secretValue: (name) => this.secretValue(name),
      shellSandbox: this.#shellSandbox,
      mountGuard: this.mountGuard,
      store: this.store,
      backends: this.#backends,
      events: this.events,
      scheduler: () => this.#scheduler,
      agents: async () => {
        await this.refreshAgents();
        return this.agents();
      },
      memory: this.#memory,
      memoryTrust: this.#memoryTrust,
      onEnded: (run) => this.#afterEnd(run),
      mcp: this.#mcpClient,
    };
    return new Run(
      {
        id: input.id,
        traceId: input.traceId,
        taskId: input.taskId,
        parentRunId: input.parentRunId,
        ancestorRunIds: (input.parents ?? []).map((p) => p.runId),
        agent: input.agent,
        tools: this.agentTools(input.agent),
        layers: { agent: { name: input.agent.name, grants: input.agent.grants }, task: input.taskGrants, parents: input.parents },
        mounts,
        allowSensitive,
        status: input.status,
        pending: input.pending,
        lastEventSeq: input.lastEventSeq,
      },
      services,
    );
  }

  /**
   * What every ancestor of a sub-agent run was allowed (its task's grant, or its agent's): each
   * is one more layer the child's host calls must satisfy, whatever the child's manifest says.
   */
  async #parentLayers(parentRunId: string | null): Promise<ParentLayer[]> {
    const parents: ParentLayer[] = [];
    let next = parentRunId;
    while (next) {
      if (parents.length >= 32) throw new ConflictError("run_chain_too_deep", `run ${parentRunId} has more than 32 ancestors`);
      const record = await this.records.get(next);
      if (!record) throw new NotFoundError(`parent run ${next} does not exist`);
      const agent = this.#agent(record.agent);
      const grants = record.taskGrants === null ? agent.grants : parseTaskGrants(record.taskGrants, agent, { hostGuard: this.mountGuard });
      parents.push({ name: agent.name, grants, runId: record.id });
      next = record.parentRunId;
    }
    return parents;
  }

  /**
   * What a run's end sets off on this node: its unfinished sub-agent runs are cancelled (a run
   * that ends, for any reason, leaves no child behind), and a parent waiting for it continues
   * with its outcome. Another node's waiting parent is continued by that node's driver tick.
   */
  #afterEnd(run: Run): void {
    if (this.#closed) return;
    const work = (async () => {
      await cancelSubAgentRuns(this, run.id);
      const parent = await this.records.waitingFor(run.id);
      if (parent !== undefined && !this.#closed) await this.#driver.continue(parent);
    })()
      .catch((error: unknown) => this.#onProgress?.(`run ${run.id}: after its end: ${(error as Error).message}`))
      .finally(() => this.#afterEnds.delete(work));
    this.#afterEnds.add(work);
  }

  async #relayApproval(childRunId: string, approval: ApprovalNeeded): Promise<void> {
    try {
      const parentId = await this.records.waitingFor(childRunId);
      if (parentId !== undefined) this.#runs.get(parentId)?.relaySubAgentApproval(approval, childRunId);
    } catch (error) {
      this.#onProgress?.(`run ${childRunId}: showing its approval to its parent: ${(error as Error).message}`);
    }
  }

  #track(run: Run, how: "started" | "resumed"): Run {
    this.#runs.set(run.id, run);
    run.onEvent((event) => {
      if (event.type === "run-ended") this.#runs.delete(run.id);
      // A parent waiting for this run, live here, shows a new approval it asks for (and so on up).
      if (event.type === "approval-required") void this.#relayApproval(run.id, event.approval);
    });
    observeRun(run);
    this.#onRun?.(run, how);
    return run;
  }
}

/** One ancestor of a run: a policy layer, and the run it came from. */
type ParentLayer = NonNullable<PolicyLayers["parents"]>[number] & { runId: string };
