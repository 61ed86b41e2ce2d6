/**
 * A sandbox worker: holds plugin instances of any runs and executes one task at a time.
 *
 * It holds no secret, grant or policy: every host import is a blocking round trip to the main
 * thread, tagged with the calling instance's id, where the instance's binding decides.
 */
import { workerData } from "node:worker_threads";
import { Channel } from "./channel.js";
import type { ExtismGuest } from "./extism-guest.js";
import type { ExtismLoad, GuestFailure, HostResponse, SentTask, WorkerInit, WorkerReply, WorkerTask } from "./protocol.js";
import type { WasiGrant } from "./wasi/context.js";
// The json room's parts, not its index: the index brings ajv (~0.2 s, ~10 MB) into every worker.
import { GUEST_RESULT_JSON } from "../json/limits.js";
import { scanJson } from "../json/scan.js";
import { callTypedExport, type TypedTools } from "./typed-call.js";

type Instantiate = (
  getCoreModule: (name: string) => WebAssembly.Module,
  imports: Record<string, unknown>,
  instantiateCore: (module: WebAssembly.Module, imports: WebAssembly.Imports) => WebAssembly.Instance,
) => unknown;

interface GuestExports {
  tools: { describe(): unknown; call(name: string, input: string): unknown };
}

const init = workerData as WorkerInit;
const hostChannel = new Channel(init.hostBuffer, init.hostPort);
const taskChannel = new Channel(init.taskBuffer, init.taskPort);
const plugins = new Map<string, { instantiate: Instantiate; modules: Record<string, WebAssembly.Module>; wasi?: WasiGrant; typed?: TypedTools } | ExtismPlugin>();
const instances = new Map<number, { guest: GuestExports; memories: WebAssembly.Memory[]; typed?: TypedTools }>();
/** Extism instances, apart so a component call's lookup stays what it was. */
const extismInstances = new Map<number, ExtismGuest>();

interface ExtismPlugin {
  extism: ExtismLoad;
  module: WebAssembly.Module;
  wasi: WasiGrant;
}
/** Loaded on the first Extism plugin only: a worker serving components never pays for the SDK. */
let extismRuntime: Promise<typeof import("./extism-guest.js")> | undefined;
const HOST_IMPORT = /^clawhive:host\/([a-z][a-z0-9-]*)(?:@0\.\d+\.\d+)?$/;
/** Loaded with the first plugin that imports WASI: other workers never pay for it. */
let wasiRuntime: typeof import("./wasi/imports.js") | undefined;

/** The import object of one instance: every host function is a bridge call tagged with its id. */
function hostImports(instanceId: number, wasi: WasiGrant | undefined): Record<string, unknown> {
  const interfaces = new Map<string, unknown>();
  let wasiInterface: ((name: string) => Record<string, unknown> | undefined) | undefined;
  return new Proxy({} as Record<string, unknown>, {
    get(_target, key) {
      if (typeof key !== "string") return undefined;
      if (key.startsWith("wasi:") && wasi && wasiRuntime) {
        // clawhive's own WASI, per instance: each effect is a bridge call like any host function.
        wasiInterface ??= wasiRuntime.wasiInterfaces({ grant: wasi, hostCall: (iface, fn, args) => hostChannel.requestSync([instanceId, iface, fn, args]) as HostResponse });
        return wasiInterface(key.replace(/@[^/]*$/, ""));
      }
      const match = HOST_IMPORT.exec(key);
      if (!match) return undefined; // anything but clawhive:host and the served WASI is not provided
      const iface = match[1]!;
      let functions = interfaces.get(iface);
      if (!functions) {
        const cache = new Map<string, (...args: unknown[]) => unknown>();
        functions = new Proxy({}, {
          get(_t, fn) {
            if (typeof fn !== "string") return undefined;
            let f = cache.get(fn);
            if (!f) {
              f = (...args: unknown[]) => {
                const response = hostChannel.requestSync([instanceId, iface, fn, args]) as HostResponse;
                if (response.ok) return response.value;
                throw response.error; // jco lowers a thrown non-Error value as the WIT error case
              };
              cache.set(fn, f);
            }
            return f;
          },
        });
        interfaces.set(iface, functions);
      }
      return functions;
    },
  });
}

async function run(task: SentTask): Promise<WorkerReply> {
  const started = performance.now();
  for (const id of task.drop ?? []) destroyInstance(id);
  const done = (reply: { ok: true; value: unknown } | { ok: false; failure: GuestFailure }): WorkerReply => ({
    ...reply,
    elapsedUs: Math.round((performance.now() - started) * 10_000) / 10,
  });
  switch (task.type) {
    case "ping":
      // A health probe that also lets tests check what a worker can see of its process.
      return done({ ok: true, value: { envKeys: Object.keys(process.env).length, instances: instances.size + extismInstances.size } });
    case "load": {
      if (task.format === "extism") return done(await loadExtism(task));
      if (task.format !== "component" || task.glue === undefined) return done({ ok: false, failure: { kind: "trap", message: `format ${task.format} is not supported` } });
      const url = `data:text/javascript;base64,${Buffer.from(task.glue).toString("base64")}`;
      const glue = (await import(url)) as { instantiate: Instantiate };
      // Only a glue that asks for WASI loads the implementation; no other plugin pays for it.
      if (task.wasi && task.glue.includes("imports['wasi:")) wasiRuntime ??= await import("./wasi/imports.js");
      plugins.set(task.pluginKey, { instantiate: glue.instantiate, modules: task.modules, ...(task.wasi ? { wasi: task.wasi } : {}), ...(task.typed ? { typed: task.typed } : {}) });
      return done({ ok: true, value: null });
    }
    case "create": {
      const plugin = plugins.get(task.pluginKey);
      if (!plugin) return done({ ok: false, failure: { kind: "trap", message: `plugin ${task.pluginKey} not loaded` } });
      if ("extism" in plugin) return done(await createExtism(task.instanceId, plugin));
      const memories: WebAssembly.Memory[] = [];
      try {
        const exports = plugin.instantiate(
          (name) => {
            const module = plugin.modules[name];
            if (!module) throw new Error(`core module ${name} missing`);
            return module;
          },
          hostImports(task.instanceId, plugin.wasi),
          (module, imports) => {
            const instance = new WebAssembly.Instance(module, imports);
            // Kept to tell a memory-cap failure from other traps.
            for (const value of Object.values(instance.exports)) if (value instanceof WebAssembly.Memory) memories.push(value);
            return instance;
          },
        );
        if (exports instanceof Promise) throw new Error("instantiation did not complete synchronously");
        instances.set(task.instanceId, { guest: exports as GuestExports, memories, ...(plugin.typed ? { typed: plugin.typed } : {}) });
        return done({ ok: true, value: null });
      } catch (error) {
        return done({ ok: false, failure: { kind: "trap", message: describeError(error) } });
      }
    }
    case "unload":
      // Instances made from it keep their own references; new ones need a fresh load.
      plugins.delete(task.pluginKey);
      return done({ ok: true, value: null });
    case "destroy":
      destroyInstance(task.instanceId);
      return done({ ok: true, value: null });
    case "call": {
      const extism = extismInstances.get(task.instanceId);
      if (extism) {
        if (task.method === "typed") return done({ ok: false, failure: { kind: "trap", message: "an Extism plugin has no typed exports" } });
        return done(await callExtism(task.instanceId, extism, task.method, task.args));
      }
      if (task.method === "typed") return done(callTyped(task.instanceId, String(task.args[0]), String(task.args[1])));
      return done(callGuest(task.instanceId, task.method, task.args));
    }
  }
}

function callGuest(instanceId: number, method: "describe" | "call", args: unknown[]): { ok: true; value: unknown } | { ok: false; failure: GuestFailure } {
  const instance = instances.get(instanceId);
  if (!instance) return { ok: false, failure: { kind: "no-instance" } };
  const guest = instance.guest;
  // A typed component has no describe: its tools come from its WIT types (a prewarm's describe is a no-op).
  if (instance.typed && method === "describe") return { ok: true, value: [] };
  try {
    const value = method === "describe" ? guest.tools.describe() : guest.tools.call(String(args[0]), String(args[1]));
    return checkedResult(value);
  } catch (error) {
    if (error && typeof error === "object" && "payload" in error && !(error instanceof WebAssembly.RuntimeError)) {
      return { ok: false, failure: { kind: "tool-error", payload: (error as { payload: unknown }).payload } };
    }
    return trapped(instanceId, instance, error);
  }
}

/** A typed export called with JSON input: lowered, called, its result lifted (see typed-call.ts). */
function callTyped(instanceId: number, tool: string, input: string): Outcome {
  const instance = instances.get(instanceId);
  if (!instance) return { ok: false, failure: { kind: "no-instance" } };
  if (!instance.typed) return { ok: false, failure: { kind: "trap", message: "the plugin has no typed exports" } };
  const outcome = callTypedExport(instance.guest, instance.typed, tool, input);
  if (outcome.ok) return checkedResult(outcome.value);
  if ("payload" in outcome) return { ok: false, failure: { kind: "tool-error", payload: outcome.payload } };
  return trapped(instanceId, instance, outcome.trap);
}

/** A trap poisons the instance ("cannot enter component instance" ever after): drop it. */
function trapped(instanceId: number, instance: { memories: WebAssembly.Memory[] }, error: unknown): Outcome {
  instances.delete(instanceId);
  dropped++;
  const memoryBytes = instance.memories.reduce((n, m) => Math.max(n, m.buffer.byteLength), 0);
  return { ok: false, failure: { kind: "trap", message: describeError(error), memoryBytes } };
}

async function loadExtism(task: Extract<WorkerTask, { type: "load" }>): Promise<Outcome> {
  const modules = Object.values(task.modules);
  if (modules.length !== 1 || !task.extism) return { ok: false, failure: { kind: "trap", message: "an Extism plugin is one core module with its defaults" } };
  extismRuntime ??= import("./extism-guest.js");
  await extismRuntime;
  plugins.set(task.pluginKey, { extism: task.extism, module: modules[0]!, wasi: task.wasi ?? { env: {}, config: {}, args: [] } });
  return { ok: true, value: null };
}

async function createExtism(instanceId: number, plugin: ExtismPlugin): Promise<Outcome> {
  try {
    const { ExtismGuest } = await extismRuntime!;
    const guest = await ExtismGuest.create(plugin.module, {
      ...plugin.extism,
      wasi: plugin.wasi,
      hostCall: (iface, fn, args) => hostChannel.requestSync([instanceId, iface, fn, args]) as HostResponse,
    });
    extismInstances.set(instanceId, guest);
    return { ok: true, value: null };
  } catch (error) {
    return { ok: false, failure: { kind: "trap", message: describeError(error) } };
  }
}

/** The same reply shapes as a component's call: tool error, trap (instance dropped), oversized result. */
async function callExtism(instanceId: number, guest: ExtismGuest, method: "describe" | "call", args: unknown[]): Promise<Outcome> {
  let outcome: Awaited<ReturnType<ExtismGuest["describe"] | ExtismGuest["call"]>>;
  try {
    outcome = method === "describe" ? await guest.describe() : await guest.call(String(args[0]), String(args[1]));
  } catch (error) {
    extismInstances.delete(instanceId);
    const kernelBytes = (error as { memoryBytes?: unknown }).memoryBytes;
    const memoryBytes = Math.max(guest.memoryBytes, typeof kernelBytes === "number" ? kernelBytes : 0);
    return { ok: false, failure: { kind: "trap", message: describeError(error), memoryBytes } };
  }
  if (!outcome.ok) return { ok: false, failure: { kind: "tool-error", payload: outcome.error } };
  return checkedResult(outcome.value);
}

/**
 * A guest's result, refused here (off the main thread) when it is larger than the cap or is JSON
 * nested or spread beyond the guest result limits: the host parses a result and writes it out
 * again (audit, events, the model's messages), and a result nested 20,000 deep overflows the
 * stack there. A text that is not JSON at all is kept: the host passes it on as text.
 */
function checkedResult(value: unknown): Outcome {
  if (typeof value !== "string") return { ok: true, value };
  const bytes = Buffer.byteLength(value);
  if (bytes > init.maxResultBytes) return { ok: false, failure: { kind: "result-too-large", bytes, max: init.maxResultBytes } };
  const problem = scanJson(value, GUEST_RESULT_JSON, { at: "result" });
  if (problem && parsesAsJson(value)) return { ok: false, failure: { kind: "result-unbounded", problem } };
  return { ok: true, value };
}

/** V8's JSON parser does not recurse, so any text can be tried here; nothing parsed leaves the worker. */
function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

type Outcome = { ok: true; value: unknown } | { ok: false; failure: GuestFailure };

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** Instances dropped since the worker last collected: their memories are freed only by a collection. */
let dropped = 0;

function destroyInstance(id: number): void {
  if (instances.delete(id) || extismInstances.delete(id)) dropped++;
}

/**
 * Once the worker has had no task for a while, the memories of the instances it dropped are
 * handed back: a worker parked in `Atomics.wait` allocates nothing, so V8 would never collect
 * them (each keeps the pages its instance touched, ~4 MB for a first-party plugin), and an
 * ended run's memory would stay resident until the next burst of work. Never on a task's path:
 * only after IDLE_COLLECT_MS without one.
 */
const IDLE_COLLECT_MS = 250;
function collectDropped(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (dropped === 0 || collect === undefined) return;
  dropped = 0;
  collect();
}

// Idle between tasks in Atomics.wait; tasks run strictly one at a time, even the async `load`.
void taskChannel.serveBlocking((task) => run(task as SentTask), { afterMs: IDLE_COLLECT_MS, run: collectDropped });
