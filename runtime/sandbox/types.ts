import type { HostCallHandler } from "../../host-proxies/types.js";
import type { ExtismLogLevel } from "../plugins/extism-abi.js";
import type { PluginFormat, PluginManifest, Risk } from "../plugins/manifest.js";
import type { TypedTools } from "./typed-call.js";

/**
 * What an instance is bound to: the run it serves and the handler of its host calls. Fixed
 * before the first guest call, never changed (the object is frozen at bind).
 */
export interface Binding {
  /** For operators and events, e.g. the run id. */
  readonly label: string;
  /** The agent whose run this is: its runs share one fair share of the workers. */
  readonly agent?: string;
  readonly handler: HostCallHandler;
}

/** A plugin compiled and ready to instantiate. */
export interface SandboxPlugin {
  readonly key: string;
  readonly manifest: PluginManifest;
  readonly format: PluginFormat;
  /** The component's glue; absent for Extism plugins. */
  readonly glue?: string;
  readonly modules: Readonly<Record<string, WebAssembly.Module>>;
  /** The wasm memory cap compiled into `modules` (MiB). */
  readonly memoryMaxMb?: number;
  /** A typed component's tools (read from its WIT types at load); absent for describe/call plugins. */
  readonly typed?: TypedTools;
}

/** A tool as a plugin describes it (`clawhive:plugin/tools.tool-descriptor`). */
export interface ToolDescriptor {
  name: string;
  description: string;
  inputSchema: string;
  capabilities: string[];
  risk: Risk;
}

export type SandboxEvent =
  | { type: "instance-created"; instanceId: number; plugin: string; workerId: number; ms: number; warm: boolean }
  | { type: "instance-destroyed"; instanceId: number; plugin: string; reason: string }
  | { type: "unbound-host-call"; instanceId: number; plugin: string; iface: string; fn: string }
  /** A bound call waited behind another call while a worker was idle: its instance moved there. */
  | { type: "instance-moved"; instanceId: number; plugin: string; fromWorkerId: number }
  | { type: "worker-exit"; workerId: number; reason: string };

export interface SandboxOptions {
  /** Worker threads (default: 2). */
  workers?: number;
  /** Deadline of one guest call (default 30 s). */
  callTimeoutMs?: number;
  /** The longest deadline any call may ask for (default 1 hour); a longer one is cut to it. */
  maxCallTimeoutMs?: number;
  /** Guest calls one run may hold in the workers at once (default: workers - 1, at least 1). */
  callsPerRun?: number;
  /** Guest calls the runs of one agent may hold in the workers at once (default: workers - 1, at least 1). */
  callsPerAgent?: number;
  /** Guest calls one run may have waiting for its share (default 64); one more is refused. */
  queuedCallsPerRun?: number;
  /**
   * How long a bound call queued behind another run's call waits before it is moved to an idle
   * worker (its instance rebuilt there, default 100 ms).
   */
  movePatienceMs?: number;
  /** Deadline of one instantiation (default 10 s). */
  createTimeoutMs?: number;
  /** Largest result a guest call may return (default 4 MiB). */
  maxResultBytes?: number;
  /** Cap of each instance's wasm memory (default 256 MiB). */
  memoryMaxMb?: number;
  /** JS heap cap per worker (default 512 MiB). */
  maxHeapMb?: number;
  /** Unbound instances kept ready per plugin (default 1; 0 disables the pool). */
  poolSize?: number;
  /**
   * Refill the pool once a call takes an instance from it (default true). False for a process
   * serving one session (`clawhive mcp serve`): its run keeps the instance it took, so a refill
   * would make one nobody takes, competing with the session's calls while it is made.
   */
  refillPool?: boolean;
  /**
   * Start the workers when the sandbox is made (default false: with its first instance, so an
   * idle runtime holds none, ~8 MB each). True for a process that will make an instance soon
   * (`clawhive mcp serve`): a worker thread's own start (~0.2–0.5 s of Node's bootstrap) then
   * overlaps the store's opening instead of delaying the session's first call.
   */
  startWorkers?: boolean;
  /**
   * How long the main thread polls for a guest call's reply before parking in
   * `Atomics.waitAsync` (default 0.5 ms; 0 never polls). Trades a little main-thread CPU for
   * tens of µs per call and per host call.
   */
  spinMs?: number;
  /**
   * The level an Extism plugin's kernel log lines (`log_trace` … `log_error`) are kept from, and
   * what its `get_log_level` answers (default info). Lines go to the run's log, a trace line at debug.
   */
  extismLogLevel?: ExtismLogLevel | "silent";
  onEvent?: (event: SandboxEvent) => void;
}
