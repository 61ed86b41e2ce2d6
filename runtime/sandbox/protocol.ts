import type { JsonProblem } from "../json/index.js";
import type { TypedTools } from "./typed-call.js";

/** Messages between the sandbox (main thread) and its workers. Plain, structured-clonable data. */

export interface WorkerInit {
  /** Host calls: the worker asks, the main thread answers. */
  hostBuffer: SharedArrayBuffer;
  hostPort: import("node:worker_threads").MessagePort;
  /** Tasks: the main thread asks, the worker answers. */
  taskBuffer: SharedArrayBuffer;
  taskPort: import("node:worker_threads").MessagePort;
  maxResultBytes: number;
}

/** A host call as it crosses the channel: [instance id, interface, function, arguments]. */
export type HostRequest = [number, string, string, unknown[]];
export type HostResponse = { ok: true; value: unknown } | { ok: false; error: unknown };

/** What an Extism plugin's instances need beyond the module: plugin.json's defaults and the kernel budget. */
export interface ExtismLoad {
  capabilities: string[];
  risks: Record<string, "safe" | "guarded" | "unsafe">;
  /** Most bytes of Extism kernel blocks one guest call may hold. */
  kernelBytes: number;
  /** The PDK integer of the level the kernel's log lines are kept from (`get_log_level`). */
  logLevel: number;
}

export type WorkerTask =
  | { type: "load"; pluginKey: string; format: "component" | "extism"; glue?: string; modules: Record<string, WebAssembly.Module>; extism?: ExtismLoad; wasi?: WasiGrant; typed?: TypedTools }
  | { type: "create"; instanceId: number; pluginKey: string }
  /** `typed`: args [tool, JSON input] of a component's typed export (its plan came with the load). */
  | { type: "call"; instanceId: number; method: "describe" | "call" | "typed"; args: unknown[] }
  | { type: "destroy"; instanceId: number }
  | { type: "unload"; pluginKey: string }
  | { type: "ping" };

/**
 * A task as it crosses the channel: `drop` names instances destroyed since the worker's last
 * task, removed before this one runs (a destroy rides on the next task instead of costing a
 * hand-off of its own; see WorkerHandle.post).
 */
export type SentTask = WorkerTask & { drop?: number[] };

/** How a guest call ended, as the worker saw it. */
export type GuestFailure =
  /** The export returned its WIT error case: the instance is fine. */
  | { kind: "tool-error"; payload: unknown }
  /** The guest trapped (or broke the ABI): the instance is destroyed. */
  | { kind: "trap"; message: string; memoryBytes?: number }
  /** The result exceeded the cap: the instance is kept, the result dropped. */
  | { kind: "result-too-large"; bytes: number; max: number }
  /** The result is JSON beyond the guest result limits (too deep, too many values): the instance is replaced. */
  | { kind: "result-unbounded"; problem: JsonProblem }
  /** The instance does not exist in this worker. */
  | { kind: "no-instance" };

export type WorkerReply =
  | { ok: true; value: unknown; elapsedUs: number }
  | { ok: false; failure: GuestFailure; elapsedUs: number };

/** What a plugin's grant gives its WASI guest: plain values from plugin.json, never the process's. */
export interface WasiGrant {
  env: Readonly<Record<string, string>>;
  config: Readonly<Record<string, string>>;
  args: readonly string[];
}
