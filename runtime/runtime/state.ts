/**
 * What a Runtime holds: its store and what lives on it, the plugins and agents it loaded, the
 * runs live here. The facade (runtime.ts) keeps one of these; the modules beside this file are
 * its parts, each a function over it.
 */
import type { AgentManifest } from "../agents/index.js";
import type { AgentCatalogue } from "../agents/catalogue.js";
import type { AgentStore } from "../agents/store.js";
import type { AuditLog } from "../audit/index.js";
import type { ApprovalStore } from "../policy/approvals/index.js";
import type { PolicyLayers } from "../policy/engine.js";
import type { InstalledPlugin, PluginInstaller } from "../plugins/install/index.js";
import { nodeId } from "../runs/node-id.js";
import { RunRecords } from "../runs/records.js";
import type { RunDriver } from "../runs/driver.js";
import { RunEventLog } from "../runs/event-log.js";
import type { Run } from "../runs/run.js";
import type { RuntimeOptions } from "../options.js";
import type { PluginHandle, ToolInfo } from "../runs/types.js";
import type { Sandbox } from "../sandbox/index.js";
import { GroupedBatches, type Clock, type Store } from "../store/index.js";
import type { SecretStore } from "../secrets/index.js";
import type { SandboxInfo } from "../../host-proxies/shell/index.js";
import type { McpClient } from "../mcp-client/index.js";
import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import type { Backends } from "../runs/backends.js";
import { Conversations } from "../runs/conversations.js";
import { TodoLists } from "../todo/index.js";
import type { Scheduler } from "../schedules/index.js";
import { defaultSkillsDir, SkillsCache } from "../skills/index.js";
import { LoopStates, type RunLoop } from "../runs/loop/index.js";
import type { MemoryStore } from "../memory/index.js";
import type { MemoryTrust } from "../runs/run-memory.js";
import type { ToolRetrieval } from "../runs/loop/tool-retrieval.js";
import type { SharedLook } from "./shared-look.js";
import type { SpawnResult, SpawnSubAgentOptions } from "../runs/sub-agents.js";

/** One ancestor of a run: a policy layer, and the run it came from. */
export type ParentLayer = NonNullable<PolicyLayers["parents"]>[number] & { runId: string };

/**
 * What needs the whole Runtime (sub-agents start runs through it, schedules submit through
 * it): given by the facade, so that its parts need not know it.
 */
export interface RuntimeHooks {
  /** Called once the state exists, before anything runs on it. */
  attach(state: RuntimeState): void;
  openScheduler(options: RuntimeOptions): Promise<Scheduler>;
  spawnSubAgent(parent: Run, spawn: SpawnSubAgentOptions): Promise<SpawnResult>;
  cancelSubAgentRuns(runId: string): Promise<unknown>;
}

export class RuntimeState {
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
  readonly hooks: RuntimeHooks;
  /** This process's id in run leases (several runtimes may share one store). */
  readonly node = nodeId();
  scheduler: Scheduler | undefined;
  readonly events: RunEventLog;
  /** Conversations: what a person and an agent said over several model-driven runs. */
  readonly conversations: Conversations;
  /** The todo lists runs' models keep (runtime/todo). */
  readonly todos: TodoLists;
  readonly loopStates: LoopStates;
  loop: RunLoop | undefined;
  driver!: RunDriver;
  leaseMs = 15_000;
  /** The operator's `secrets.refuse_transformed_outputs` (see RunServices). */
  refuseTransformedSecrets = false;
  plugins: Map<string, PluginHandle>;
  tools: ToolInfo[];
  installed: InstalledPlugin[] = [];
  /** The registry's fingerprint when `plugins` was last read from it. */
  pluginsSeen = "";
  /** Looks at the registry (see refreshPlugins); set by createRuntime. */
  pluginsLook!: SharedLook;
  /** The store for the writes of runs (see GroupedBatches): records, journal, events. */
  readonly runWrites: GroupedBatches;
  /** Looks at the agents folder and table (see refreshAgents); set by createRuntime. */
  agentsLook!: SharedLook;
  onRun: RuntimeOptions["onRun"];
  onProgress: RuntimeOptions["onProgress"];
  /** Agents from the agents folder and those defined in code (`defineAgent`). */
  agents: Map<string, AgentManifest>;
  /** Agents stored through the API (every runtime on the store sees them); never shadow the above. */
  storedAgents = new Map<string, AgentManifest>();
  agentStore!: AgentStore;
  /** Agent files and stored agents, parsed when they change. */
  catalogue!: AgentCatalogue;
  /** Agents given in code (`defineAgent`): they shadow files and stored agents of their name. */
  codeAgents = new Map<string, AgentManifest>();
  agentsDir = "";
  skillsDir = defaultSkillsDir();
  skills = new SkillsCache(this.skillsDir);
  runs = new Map<string, Run>();
  /** Work set off by runs' ends (`afterEnd`), awaited when closing. */
  afterEnds = new Set<Promise<void>>();
  closed = false;
  /** Every secret value known to this process, shared with the audit log's redaction. */
  secretList: { current: string[] } = { current: [] };
  backends!: Backends;
  shellSandbox: SandboxInfo = { available: false, bwrapPath: "", reason: "not probed yet" };
  memory!: () => Promise<MemoryStore>;
  memoryTrust!: MemoryTrust;
  /** Ranks the tools of an agent with `tool_retrieval` per Step. */
  toolRetrieval!: ToolRetrieval;
  mcpClient!: McpClient;

  constructor(parts: {
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
    hooks: RuntimeHooks;
  }) {
    this.dataDir = parts.dataDir;
    this.mountGuard = parts.mountGuard;
    this.sandbox = parts.sandbox;
    this.store = parts.store;
    this.audit = parts.audit;
    this.approvals = parts.approvals;
    // Runs in flight share commits: their row, journal and event writes of one turn are one transaction.
    this.runWrites = new GroupedBatches(parts.store);
    this.records = new RunRecords(this.runWrites);
    this.secrets = parts.secrets;
    this.clock = parts.clock;
    this.installer = parts.installer;
    this.hooks = parts.hooks;
    this.events = new RunEventLog(this.runWrites);
    this.conversations = new Conversations(parts.store, { now: () => parts.clock.now() });
    this.todos = new TodoLists(parts.store, { now: () => parts.clock.now() });
    this.loopStates = new LoopStates(parts.store, { now: () => parts.clock.now(), node: this.node });
    this.plugins = new Map();
    this.tools = [];
    this.agents = parts.agents;
  }
}
