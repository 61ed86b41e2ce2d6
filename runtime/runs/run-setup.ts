import type { MountHostGuard, FsMount } from "../../host-proxies/fs/index.js";
import type { AgentManifest } from "../agents/index.js";
import type { AuditLog } from "../audit/index.js";
import type { ApprovalStore } from "../policy/approvals/index.js";
import type { PolicyLayers } from "../policy/engine.js";
import type { SandboxInfo } from "../../host-proxies/shell/index.js";
import type { Store } from "../store/index.js";
import type { Scheduler } from "../schedules/scheduler.js";
import type { MemoryStore } from "../memory/index.js";
import type { MemoryTrust } from "./run-memory.js";
import type { Backends } from "./backends.js";
import type { Sandbox } from "../sandbox/index.js";
import type { PendingToolCall, RunRecords, RunStatus } from "./records.js";
import type { RunEventLog } from "./event-log.js";
import type { PluginHandle, ToolInfo } from "./types.js";
import type { McpClient } from "../mcp-client/index.js";
import type { AuditSubject, IntentGuard } from "../audit/index.js";
import type { ConflictError } from "../errors.js";
import type { RunStopped } from "./host-context-types.js";
import type { ReportBuilder } from "./report.js";
import type { EffectLedger } from "./effects.js";
import type { RunEvent } from "./types.js";

/** What a run needs from the runtime that starts it. */
export interface RunServices {
  sandbox: Sandbox;
  plugins: ReadonlyMap<string, PluginHandle>;
  audit: AuditLog;
  approvals: ApprovalStore;
  records: RunRecords;
  now: () => number;
  /** The runtime's mail and calendar backends (built once, shared by every instance). */
  backends: Backends;
  /** The runtime's store (kv lives there). */
  store: Store;
  /** This runtime node's id: once another node holds the run's lease, no effect is made here. */
  node?: string;
  /** What bubblewrap can do on this machine (probed once per runtime). */
  shellSandbox: SandboxInfo;
  /** The runtime's forbidden mount roots: elevations, and every mount an instance opens. */
  mountGuard: MountHostGuard;
  /** The runtime's long-term memory, opened on first use. */
  memory: () => Promise<MemoryStore>;
  /** Whether a run's memory writes are untrusted (see MemoryTrust). */
  memoryTrust: Pick<MemoryTrust, "tainted" | "mark">;
  /** A stored secret's value, for a host proxy on the main thread (never a worker). */
  secretValue: (name: string) => Promise<string>;
  /** Where the run's events are persisted (for streams served by any node). */
  events?: RunEventLog;
  /** The runtime's scheduler, once open (the schedule proxy stores through it). */
  scheduler?: () => Scheduler | undefined;
  /** The agents as they are now (a schedule's target agent is read from them). */
  agents?: () => Promise<readonly AgentManifest[]>;
  /** Called with the run's id once its end is in the store (its sub-agents and its waiting parent follow). */
  onEnded?: (runId: string) => void;
  /** The runtime's MCP client: the agent's `mcp_servers` are reached through it. */
  mcp?: McpClient;
  /**
   * The operator's `secrets.refuse_transformed_outputs`: an output holding a secret its tool was
   * given, in a transformed spelling, is refused (secrets/transforms.ts). An agent may ask it too.
   */
  refuseTransformedSecrets?: boolean;
}

/** What is fixed when a run starts. */
export interface RunSetup {
  id: string;
  traceId: string;
  taskId: string;
  parentRunId: string | null;
  /** The ids of the runs above this one, nearest first (empty for a root run). */
  ancestorRunIds?: readonly string[];
  agent: AgentManifest;
  /** The agent's tools (already narrowed to its plugin list). */
  tools: readonly ToolInfo[];
  layers: PolicyLayers;
  mounts: readonly FsMount[];
  allowSensitive: readonly string[];
  status?: RunStatus;
  pending?: PendingToolCall | null;
  /** The seq of the last event already stored (a run rebuilt from the store continues after it). */
  lastEventSeq?: number;
}

export interface CallToolOptions {
  /** The step this call belongs to; a replay after an approval reuses its step. */
  stepId?: string;
  /** Restores, for this step only, what the task narrowed away (a grant within the agent's). */
  elevation?: unknown;
  timeoutMs?: number;
  /** The text that led to the call, shown to the person asked to approve it. */
  context?: string;
}

/** What a run's ToolCalls need of the run itself: its state, its events, and the store's word on whether it may go on. */
export interface RunSide {
  subject(): Omit<AuditSubject, "kind">;
  emit(event: RunEvent): void;
  readonly report: ReportBuilder;
  readonly effects: EffectLedger;
  status(): RunStatus;
  pending(): PendingToolCall | null;
  setPending(pending: PendingToolCall | null): Promise<void>;
  /** Throws `run_cancelled`, `run_ended` or `run_taken_over` when the store says the run may not go on. */
  stopIfAsked(): Promise<void>;
  /**
   * Asked before every effect: why the run may make none, else undefined. `fenced`: the effect's
   * intent is committed with the fence, so only what this node knows is asked, not the store.
   */
  stoppedBeforeEffect(options?: { fenced?: boolean }): Promise<RunStopped | undefined>;
  /** The guard every effect's intent is committed with (see effectGuard). */
  fence(): IntentGuard;
  takenOver(): boolean;
  takenOverError(): ConflictError;
  flushEvents(): Promise<void>;
}
