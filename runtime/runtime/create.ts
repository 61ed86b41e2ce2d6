/** Opening a runtime: its store and migrations, secrets, audit log, plugins, agents, driver. */
import { todoMigrations } from "../todo/index.js";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { AgentCatalogue } from "../agents/catalogue.js";
import { AgentStore } from "../agents/store.js";
import { openAuditLog } from "../audit/index.js";
import { ApprovalStore } from "../policy/approvals/index.js";
import { defaultBuildCacheDir, pluginSourceDirs, PROJECT_ROOT } from "../plugins/locations.js";
import { pluginMigrations, PluginInstaller, PluginRegistry } from "../plugins/install/index.js";
import { auditUnboundCalls } from "../runs/unbound-calls.js";
import { callTimeoutNotes } from "../runs/grant-limits.js";
import { CodeSeal } from "../plugins/seal.js";
import { defaultStoreUrl } from "../runs/agent-setup.js";
import { parseNodeId, processAlive, safeHostname } from "../runs/node-id.js";
import { installOwnPlugins } from "../plugins/install/own-plugins.js";
import { RunRecords, runMigrations } from "../runs/records.js";
import { RunDriver } from "../runs/driver.js";
import { RunJournal, runJournalMigrations } from "../runs/journal.js";
import type { RuntimeOptions } from "../options.js";
import { Sandbox } from "../sandbox/index.js";
import { applyMigrations, openStore, StoreError, storeProbeMigrations, systemClock } from "../store/index.js";
import { openSecretStore } from "../secrets/index.js";
import { McpClient } from "../mcp-client/index.js";
import { VERSION } from "../cli/version.js";
import { runtimeMountGuard } from "../runs/mount-guard.js";
import { kvMigrations } from "../../host-proxies/kv/index.js";
import { createBackends } from "../runs/backends.js";
import { defaultSkillsDir, SkillsCache } from "../skills/index.js";
import { embedderOf, lazyMemoryStore, MEMORY_PLUGIN, MemoryTrust, memoryTrustMigrations } from "../runs/run-memory.js";
import { ToolRetrieval, toolRetrievalMigrations } from "../runs/loop/tool-retrieval.js";
import { agentList, lookAtAgents, refreshAgents } from "./agents.js";
import { abandonRun, claimRun, resumeRun } from "./leases.js";
import { runLoop } from "./loop.js";
import { refreshPlugins, syncPlugins } from "./plugins.js";
import { SharedLook } from "./shared-look.js";
import { cachedSandboxProbe } from "./shell-probe.js";
import { secretValue } from "./secrets.js";
import { RuntimeState, type RuntimeHooks } from "./state.js";

export async function openRuntimeState(options: RuntimeOptions, hooks: RuntimeHooks): Promise<RuntimeState> {
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const clock = options.clock ?? systemClock;
  const mountGuard = runtimeMountGuard({
    dataDir,
    storeUrl: options.storeUrl,
    secretKeyFile: options.secretKeyFile,
    buildCacheDir: options.buildCacheDir ?? defaultBuildCacheDir(dataDir),
    mailDir: options.mail?.backend === "maildir" ? options.mail.dir : undefined,
    calendarDir: options.calendar?.backend === "ics" ? options.calendar.dir : undefined,
  });
  const store =
    options.store ??
    (await openStore({ url: options.storeUrl ?? defaultStoreUrl(dataDir), authToken: options.storeAuthToken, clock, ...(options.storeTimeoutMs === undefined ? {} : { timeoutMs: options.storeTimeoutMs }) }));
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
    await applyMigrations(store, todoMigrations, { clock });
    await applyMigrations(store, memoryTrustMigrations, { clock });
    await applyMigrations(store, toolRetrievalMigrations, { clock });
    await applyMigrations(store, pluginMigrations, { clock });
    await applyMigrations(store, storeProbeMigrations, { clock });
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
    const approvals = await ApprovalStore.open(store, { clock, audit: (event) => audit.appendPatternEvent(event) });
    const records = new RunRecords(store);
    const installer = new PluginInstaller({
      registry: new PluginRegistry(store, { clock }),
      sandbox,
      cacheDir: options.buildCacheDir ?? defaultBuildCacheDir(dataDir),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      runsUsing: (name) => records.unfinishedUsing(name),
      // Cached builds are trusted under the secret key's seal only; every plugin change is audited.
      seal: CodeSeal.fromSecrets(secrets),
      audit: (event) => audit.appendPluginEvent(event),
      // Registry credentials (`registry_secret`); every secret's value is redacted from the audit already.
      secretValue: (name) => secrets.get(name),
    });
    await installOwnPlugins(installer, options.pluginDirs ?? (await pluginSourceDirs()), options.onProgress);
    const runtime = new RuntimeState({ dataDir, mountGuard, sandbox, store, audit, approvals, secrets, clock, installer, agents: new Map(), hooks });
    runtime.pluginsLook = new SharedLook(() => syncPlugins(runtime));
    runtime.agentsLook = new SharedLook(() => lookAtAgents(runtime));
    hooks.attach(runtime);
    runtime.onRun = options.onRun;
    runtime.memory = lazyMemoryStore(store, { clock, embeddings: options.memory?.embeddings, secretValue: (name) => secretValue(runtime, name) });
    const embeddings = options.memory?.embeddings;
    runtime.toolRetrieval = new ToolRetrieval(store, embeddings ? { embedder: { model: embeddings.model, get: onceOf(() => embedderOf(embeddings, (name) => secretValue(runtime, name))) } } : {});
    // Only the first-party memory plugin's output leaves a run trusted: one a person installed under its name does not.
    runtime.memoryTrust = new MemoryTrust(store, {
      audit,
      clock,
      trustedPlugin: () => (runtime.installed.some((p) => p.name === MEMORY_PLUGIN && p.firstParty) ? MEMORY_PLUGIN : undefined),
    });
    runtime.onProgress = options.onProgress;
    runtime.agentStore = await AgentStore.open(store, { clock });
    runtime.agentsDir = options.agentsDir ?? join(PROJECT_ROOT, "capabilities");
    runtime.catalogue = new AgentCatalogue({ dir: runtime.agentsDir, dataDir, hostGuard: mountGuard, stored: runtime.agentStore });
    runtime.skillsDir = options.skillsDir ?? defaultSkillsDir();
    runtime.skills = new SkillsCache(runtime.skillsDir);
    await refreshAgents(runtime);
    for (const note of callTimeoutNotes(agentList(runtime), sandbox.options.maxCallTimeoutMs)) options.onProgress?.(note);
    runtime.leaseMs = options.runLeaseMs ?? 15_000;
    runtime.refuseTransformedSecrets = options.refuseTransformedSecrets === true;
    runtime.driver = new RunDriver({
      records: runtime.records,
      node: runtime.node,
      leaseMs: runtime.leaseMs,
      now: () => clock.now(),
      open: (id) => resumeRun(runtime, id),
      live: () => runtime.runs.values(),
      loop: runLoop(runtime, options.modelProvider, options.llm),
      claim: (id, holder) => claimRun(runtime, id, holder.node),
      abandon: (id, end) => abandonRun(runtime, id, end),
      journal: { store: new RunJournal(runtime.runWrites), audit: runtime.audit },
      holderGone: (holder) => {
        const parsed = parseNodeId(holder);
        return parsed !== undefined && parsed.host === safeHostname() && !processAlive(parsed.pid);
      },
      ...(options.continueDecidedRuns === false ? { continueDecided: false } : {}),
      ...(options.adoptOrphans === false ? { adoptOrphans: false } : {}),
      ...(options.onProgress ? { onError: (error, runId) => options.onProgress!(`run ${runId}: ${(error as Error).message}`) } : {}),
    });
    runtime.driver.start();
    runtime.scheduler = await hooks.openScheduler(options);
    // Schedules fire from long-lived runtimes (serve); a CLI command's runtime only reads them.
    if (options.runSchedules) runtime.scheduler.start();
    await refreshPlugins(runtime);
    runtime.secretList = values;
    runtime.shellSandbox = await cachedSandboxProbe(dataDir);
    runtime.mcpClient = await McpClient.open({
      store,
      clock,
      sandbox: () => runtime.shellSandbox,
      hostGuard: mountGuard,
      secretValue: (name) => secretValue(runtime, name),
      version: VERSION,
      ...options.mcpClient,
    });
    runtime.backends = await createBackends({ dataDir, ...(options.mail ? { mail: options.mail } : {}), ...(options.calendar ? { calendar: options.calendar } : {}), ...(options.mailSend ? { mailSend: options.mailSend } : {}) }, {
      value: (name) => secretValue(runtime, name),
    });
    return runtime;
  } catch (error) {
    await sandbox.close();
    await store.close();
    throw error;
  }
}

/** `make`'s value, made on first use and kept. */
function onceOf<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
