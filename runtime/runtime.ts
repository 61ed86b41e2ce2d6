import type { AgentManifest, ManifestIssue } from "./agents/index.js";
import type { AgentStore } from "./agents/store.js";
import type { AuditLog } from "./audit/index.js";
import { ConflictError } from "./errors.js";
import type { ApprovalStore } from "./policy/approvals/index.js";
import type { ChangeOptions, InstalledPlugin, InstallOptions, InstallResult, InstallSourceOptions, PluginInstaller, UpgradeOptions } from "./plugins/install/index.js";
import type { RunRecord, RunRecords } from "./runs/records.js";
import type { RunEventLog } from "./runs/event-log.js";
import type { Run } from "./runs/run.js";
import type { RuntimeOptions, StartRunOptions, SubmitRunOptions } from "./options.js";
import type { ToolInfo } from "./runs/types.js";
import type { Sandbox } from "./sandbox/index.js";
import type { Clock, Store } from "./store/index.js";
import type { SecretStore } from "./secrets/index.js";
import type { McpClient } from "./mcp-client/index.js";
import type { MountHostGuard } from "../host-proxies/fs/index.js";
import type { Conversations } from "./runs/conversations.js";
import type { TodoLists } from "./todo/index.js";
import { openRuntimeScheduler, type Scheduler } from "./schedules/index.js";
import { cancelSubAgentRuns, spawnSubAgent } from "./runs/sub-agents.js";
import type { MemoryStore } from "./memory/index.js";
import { agentList, defineAgent, refreshAgents } from "./runtime/agents.js";
import { openRuntimeState } from "./runtime/create.js";
import { cancelRun, closeRuntime, isDriven, resumeRun } from "./runtime/leases.js";
import { agentToolsOf, installPlugin, loadedPlugins, refreshPlugins, removePlugin, upgradePlugin, type LoadedPlugin } from "./runtime/plugins.js";
import { refreshSecrets, removeSecret, secretValue, setSecret } from "./runtime/secrets.js";
import type { RuntimeState } from "./runtime/state.js";
import { startRun, submitRun } from "./runtime/submit.js";

export type { RuntimeOptions, StartRunOptions, SubmitRunOptions } from "./options.js";

/**
 * The core every front end wraps (HTTP API, CLI, tests): loaded plugins and agents, the store
 * with its audit log and approvals, a sandbox, and runs started on it. Its parts live in
 * runtime/runtime/*.ts, each a function over the state this facade holds.
 */
export class Runtime {
  #s!: RuntimeState;

  private constructor() {}

  static async create(options: RuntimeOptions): Promise<Runtime> {
    const runtime = new Runtime();
    await openRuntimeState(options, {
      attach: (state) => (runtime.#s = state),
      openScheduler: (o) =>
        openRuntimeScheduler(runtime, {
          ...(o.onProgress ? { onError: (error: unknown) => o.onProgress!(`scheduler: ${(error as Error).message}`) } : {}),
          ...(o.scheduleClaimTimeoutMs === undefined ? {} : { claimTimeoutMs: o.scheduleClaimTimeoutMs }),
        }),
      spawnSubAgent: (run, spawn) => spawnSubAgent(runtime, run, spawn),
      cancelSubAgentRuns: (runId) => cancelSubAgentRuns(runtime, runId),
    });
    return runtime;
  }

  get dataDir(): string {
    return this.#s.dataDir;
  }
  /** What no mount may name (forbidden-roots.ts): the system's roots and this runtime's own state. */
  get mountGuard(): MountHostGuard {
    return this.#s.mountGuard;
  }
  get sandbox(): Sandbox {
    return this.#s.sandbox;
  }
  get store(): Store {
    return this.#s.store;
  }
  get audit(): AuditLog {
    return this.#s.audit;
  }
  get approvals(): ApprovalStore {
    return this.#s.approvals;
  }
  get records(): RunRecords {
    return this.#s.records;
  }
  get secrets(): SecretStore {
    return this.#s.secrets;
  }
  get clock(): Clock {
    return this.#s.clock;
  }
  get installer(): PluginInstaller {
    return this.#s.installer;
  }
  /** This process's id in run leases (several runtimes may share one store). */
  get node(): string {
    return this.#s.node;
  }
  get events(): RunEventLog {
    return this.#s.events;
  }
  /** Conversations: what a person and an agent said over several model-driven runs. */
  get conversations(): Conversations {
    return this.#s.conversations;
  }
  /** The todo lists runs' models keep (runtime/todo). */
  get todos(): TodoLists {
    return this.#s.todos;
  }

  /** Every tool of every loaded plugin. */
  tools(): readonly ToolInfo[] {
    return this.#s.tools;
  }

  /** The MCP client: agents' MCP servers, their pinned definitions, review and accept. */
  get mcpClient(): McpClient {
    return this.#s.mcpClient;
  }

  /** The tools `agent`'s runs are offered: its plugins' and its accepted MCP servers' (`agentTools`). */
  agentTools(agent: AgentManifest): ToolInfo[] {
    return agentToolsOf(this.#s, agent);
  }

  /** The plugins this runtime has loaded (as of the last `refreshPlugins`). */
  plugins(): LoadedPlugin[] {
    return loadedPlugins(this.#s);
  }

  /** Installs a plugin (a folder, .tgz, .wasm with manifest, or https URL with sha256) and loads it. */
  installPlugin(source: string, options: InstallSourceOptions & InstallOptions = {}): Promise<InstallResult> {
    return installPlugin(this.#s, source, options);
  }

  /** Upgrades installed plugin `name`; a widening upgrade needs `accept` (else UpgradeNeedsAcceptance with the diff). */
  upgradePlugin(name: string, source: string, options: UpgradeOptions & ChangeOptions = {}): Promise<InstallResult> {
    return upgradePlugin(this.#s, name, source, options);
  }

  /** Removes plugin `name`; refused while an unfinished run uses it. */
  removePlugin(name: string, options: { by?: string } = {}): Promise<InstalledPlugin> {
    return removePlugin(this.#s, name, options);
  }

  /** Loads what the store says is installed, when it changed since the last look (runtime/plugins.ts). */
  refreshPlugins(): Promise<void> {
    return refreshPlugins(this.#s);
  }

  agents(): AgentManifest[] {
    return agentList(this.#s);
  }

  /** The agents stored through the API, with their source text. */
  get agentStore(): AgentStore {
    return this.#s.agentStore;
  }

  /** The folder skills (`<name>/SKILL.md`) are read from. */
  get skillsDir(): string {
    return this.#s.skillsDir;
  }

  /** The folder agent manifest files are read from. */
  get agentsDir(): string {
    return this.#s.agentsDir;
  }

  /** Re-reads the agent files and stored agents that changed since the last look (runtime/agents.ts). */
  refreshAgents(): Promise<void> {
    return refreshAgents(this.#s);
  }

  /** Agents whose manifest does not pass, with its problems (they cannot run until fixed). */
  invalidAgents(): ReadonlyMap<string, readonly ManifestIssue[]> {
    return this.#s.catalogue.invalid;
  }

  /** How many agent sources were parsed since start: unchanged ones are not parsed again. */
  get agentParses(): number {
    return this.#s.catalogue.parses;
  }

  /** Adds (or replaces) an agent given as an object, validated like a manifest file. */
  defineAgent(manifest: unknown): Promise<AgentManifest> {
    return defineAgent(this.#s, manifest);
  }

  /**
   * Starts a run of `agent`. `grants` is the task's narrower request (validated to lie within
   * the agent's grant); its instances are created on first use and bound to exactly these.
   */
  startRun(options: StartRunOptions): Promise<Run> {
    return startRun(this.#s, options);
  }

  /**
   * Starts a run and drives it: of explicit ToolCalls (`toolCalls`), else one the agent's model
   * drives. `settled` resolves when the run ends or waits for a person.
   */
  submitRun(options: SubmitRunOptions): Promise<{ run: Run; settled: Promise<void>; conversationId?: string }> {
    return submitRun(this.#s, options);
  }

  /** The runtime's long-term memory (opened on first use; hybrid search when an embedder is configured). */
  memory(): Promise<MemoryStore> {
    return this.#s.memory();
  }

  /** Schedules that start runs of this runtime: once at a time, or on a cron expression. */
  get scheduler(): Scheduler {
    if (!this.#s.scheduler) throw new ConflictError("runtime_starting", "the runtime's scheduler is not open yet");
    return this.#s.scheduler;
  }

  /** Whether run `id` is one the driver carries on (a plan of tool calls, or the model loop). */
  isDriven(id: string): Promise<boolean> {
    return isDriven(this.#s, id);
  }

  /**
   * Runs `work` as run `id`'s driver: meanwhile the driver's tick does not continue the run
   * (an MCP session replays its own ToolCalls once their approvals are decided).
   */
  holdRun<T>(id: string, work: () => Promise<T>): Promise<T> {
    return this.#s.driver.hold(id, work);
  }

  /** Continues run `id` here if this node may drive it (after its approval was decided). */
  continueRun(id: string): Promise<boolean> {
    return this.#s.driver.continue(id);
  }

  /** Cancels run `id`: now if this node drives it, else at its driver's next tick. */
  cancelRun(id: string): Promise<RunRecord> {
    return cancelRun(this.#s, id);
  }

  /**
   * Waits until the work runs' ends have set off here is done: a waiting parent continued (to
   * its own end or next wait), sub-agent runs cancelled. For a short-lived process (a CLI
   * command) that should not close while a parent it could continue is half way.
   */
  async idle(): Promise<void> {
    while (this.#s.afterEnds.size > 0) await Promise.allSettled([...this.#s.afterEnds]);
  }

  /** One round of the driver's background work (lease renewal, decided approvals, cancellations). */
  driverTick(): Promise<void> {
    return this.#s.driver.tick();
  }

  /** Stores a secret (encrypted) and adds its value to what the audit log redacts. */
  setSecret(name: string, value: string): Promise<void> {
    return setSecret(this.#s, name, value);
  }

  removeSecret(name: string): Promise<boolean> {
    return removeSecret(this.#s, name);
  }

  /** Re-reads every secret value (another process may have changed them). */
  refreshSecrets(): Promise<void> {
    return refreshSecrets(this.#s);
  }

  /** The value of secret `name`, for a host proxy on the main thread; it is redacted from now on. */
  secretValue(name: string): Promise<string> {
    return secretValue(this.#s, name);
  }

  /** A live run of this process, or one rebuilt from the store (after a restart, or another node's). */
  resumeRun(id: string): Promise<Run> {
    return resumeRun(this.#s, id);
  }

  getRun(id: string): Run | undefined {
    return this.#s.runs.get(id);
  }

  close(): Promise<void> {
    return closeRuntime(this.#s);
  }
}
