/**
 * One Extism plugin instance inside a sandbox worker (the worker side of docs/extism.md).
 *
 * The Extism JS SDK runs in this worker, on its thread (`runInWorker: false`), so our deadline
 * (the worker is killed) and our memory cap (the module's memory maximum, rewritten at load)
 * hold. Its own channels are clawhive's: its WASI is off (a wasip1 module gets clawhive's own
 * preview1, wasi/preview1.ts), its `fetch` refuses, and Extism's http and config kernel
 * functions are served through the http proxy and the plugin's grant (extism-http.ts). The SDK keeps kernel
 * memory blocks outside wasm memory and never bounds them, so every block a guest call makes
 * is counted against a budget, and all are released after each call (`reset`, which also keeps
 * the SDK's 16-bit block index from running out after ~16k calls). Vars are kept here, copied
 * out of their blocks, within Extism's own 1 MiB limit.
 */
import createPlugin, { type CallContext, type ExtismPluginOptions, type Plugin } from "@extism/extism";
import { EXTISM_KERNEL, EXTISM_USER, extismExportShape, KERNEL_LOG, KERNEL_LOG_LEVEL, logLevelPriority, type ExtismExportShape } from "../plugins/extism-abi.js";
import { callInput, parseCallOutput, parseDescribe, type CallOutcome, type ExtismToolDefaults, type ToolErrorPayload } from "./extism-shapes.js";
import type { HostResponse } from "./protocol.js";
import { extismChannelFunctions } from "./extism-http.js";
import { describeExports, exportInput } from "./extism-exports.js";
import { callToolInput, listToolsInput, parseListTools } from "./extism-mcp-v2.js";
import { userHostFunctions } from "./extism-host-user.js";
import type { WasiGrant } from "./wasi/context.js";
import type { ToolDescriptor } from "./types.js";

const TARGET = "main";
const PREVIEW1 = "wasi_snapshot_preview1";
/** One namespace of functions, as the SDK takes them. */
type Functions = NonNullable<ExtismPluginOptions["functions"]>[string];
/** Blocks one guest call may allocate: the SDK's index has 16 bits and never reuses a slot. */
const MAX_BLOCKS_PER_CALL = 32_768;
/** Bytes of Extism vars (keys and values) an instance may keep, Extism's own default limit. */
export const MAX_VAR_BYTES = 1 << 20;

export interface ExtismGuestOptions extends ExtismToolDefaults {
  /** Makes a host call on the main thread (a blocking bridge round trip). */
  hostCall: (iface: string, fn: string, args: unknown[]) => HostResponse;
  /** Most bytes of kernel blocks (input, allocations, host results) one guest call may hold. */
  kernelBytes: number;
  /** What `get_log_level` answers: the PDK integer of the level kernel log lines are kept from (logLevelPriority). */
  logLevel: number;
  /** The plugin's environment and config (plugin.json `wasi`). */
  wasi: WasiGrant;
  /** A throwaway instance that only answers describe. */
  scratch?: boolean;
}

/** The guest broke a limit of the kernel: the call traps, the instance is dropped. */
export class ExtismKernelError extends Error {
  /** Set when the limit was the kernel memory budget: the bytes the guest asked to hold. */
  readonly memoryBytes: number | undefined;
  constructor(message: string, memoryBytes?: number) {
    super(message);
    this.name = "ExtismKernelError";
    this.memoryBytes = memoryBytes;
  }
}

interface CallState {
  bytes: number;
  blocks: number;
  error: string | undefined;
  /**
   * Extism vars, kept here rather than by the SDK: its vars point at blocks that are released
   * after every call, and its map of names grows without bound.
   */
  vars: Map<string, Uint8Array>;
  varBytes: number;
}

export class ExtismGuest {
  readonly #plugin: Plugin;
  readonly #memory: WebAssembly.Memory | undefined;
  readonly #options: ExtismGuestOptions;
  readonly #state: CallState;
  /** A wasip1 reactor's `_initialize`, run once before the first guest call. */
  #initialize: (() => void) | undefined;
  /** Set for a wasip1 module: describe runs on a scratch instance of it (see describe). */
  #scratch: { module: WebAssembly.Module; options: ExtismGuestOptions } | undefined;
  /** How the module lists and calls its tools (extism-abi.ts). */
  #shape: ExtismExportShape = "servlet";
  #module: WebAssembly.Module | undefined;
  /** hyper-mcp v2 requests carry an MCP request id: one per guest call of the instance. */
  #requestId = 0;

  private constructor(plugin: Plugin, memory: WebAssembly.Memory | undefined, options: ExtismGuestOptions, state: CallState) {
    this.#plugin = plugin;
    this.#memory = memory;
    this.#options = options;
    this.#state = state;
  }

  static async create(module: WebAssembly.Module, options: ExtismGuestOptions): Promise<ExtismGuest> {
    const state: CallState = { bytes: 0, blocks: 0, error: undefined, vars: new Map(), varBytes: 0 };
    const functions: NonNullable<ExtismPluginOptions["functions"]> = { [EXTISM_KERNEL]: kernelFunctions(state, options), [EXTISM_USER]: userHostFunctions(module, options.hostCall, (bytes) => charge(state, options, BigInt(bytes))) };
    // A module built for WASI (wasip1) gets clawhive's own preview1, per instance.
    const holder: { memory: WebAssembly.Memory | undefined } = { memory: undefined };
    if (WebAssembly.Module.imports(module).some((i) => i.module === PREVIEW1)) {
      const { preview1Imports } = await import("./wasi/preview1.js");
      functions[PREVIEW1] = preview1Imports({ hostCall: options.hostCall, grant: options.wasi }, holder) as unknown as Functions;
    }
    const plugin = await createPlugin(
      { wasm: [{ module, name: TARGET }], config: {} },
      {
        runInWorker: false,
        useWasi: false,
        allowedHosts: [],
        allowedPaths: {},
        config: {},
        enableWasiOutput: false,
        fetch: refuseFetch,
        logger: silentLogger,
        functions,
      },
    );
    const exports = (await plugin.getInstance(TARGET)).exports;
    const memory = exports.memory;
    if (memory instanceof WebAssembly.Memory) holder.memory = memory;
    const guest = new ExtismGuest(plugin, memory instanceof WebAssembly.Memory ? memory : undefined, options, state);
    // A wasip1 reactor (wasi-libc, the PDKs) runs its constructors before its first call, as a
    // WASI host would; not here, because they may ask for the preopens and an instance may not
    // make host calls before it is bound.
    if (typeof exports._initialize === "function") guest.#initialize = exports._initialize as () => void;
    if (functions[PREVIEW1] && !options.scratch) guest.#scratch = { module, options: { ...options, scratch: true } };
    guest.#module = module;
    guest.#shape = extismExportShape(WebAssembly.Module.exports(module).filter((e) => e.kind === "function").map((e) => e.name));
    return guest;
  }

  /** The wasm memory's size, to tell a memory-cap trap from others. */
  get memoryBytes(): number {
    return this.#memory?.buffer.byteLength ?? 0;
  }

  /** Throws only on a trap (the instance is then unusable); a bad shape is a tool error. */
  async describe(): Promise<{ ok: true; value: ToolDescriptor[] } | { ok: false; error: ToolErrorPayload }> {
    // A wasip1 module's constructors read the preopens once, and describe may run before the
    // instance is bound (when host calls are refused): it runs on a scratch instance instead,
    // so this one initializes at its first call, bound, and sees the run's mounts.
    if (this.#shape === "functions") {
      try {
        return { ok: true, value: describeExports(this.#module!, this.#options) };
      } catch (cause) {
        return { ok: false, error: { tag: "failed", val: (cause as Error).message } };
      }
    }
    if (this.#scratch) {
      const scratch = await ExtismGuest.create(this.#scratch.module, this.#scratch.options);
      try {
        return await scratch.describe();
      } finally {
        await scratch.#plugin.close();
      }
    }
    const v2 = this.#shape === "mcp-v2";
    const { error, output } = await this.#invoke(v2 ? "list_tools" : "describe", v2 ? listToolsInput(++this.#requestId) : undefined);
    if (error !== undefined) return { ok: false, error: { tag: "failed", val: `${v2 ? "list_tools" : "describe"}: ${error}` } };
    try {
      return { ok: true, value: v2 ? parseListTools(output ?? "", this.#options) : parseDescribe(output ?? "", this.#options) };
    } catch (cause) {
      return { ok: false, error: { tag: "failed", val: (cause as Error).message } };
    }
  }

  /** Calls tool `name` with JSON `input`. Throws only on a trap. */
  async call(name: string, input: string): Promise<CallOutcome> {
    if (this.#shape === "functions") {
      const raw = exportInput(name, input, this.#options);
      if (!raw.ok) return { ok: false, error: { tag: raw.tag, val: raw.message } };
      const { error, output } = await this.#invoke(name, raw.value);
      return error !== undefined ? { ok: false, error: { tag: "failed", val: error } } : { ok: true, value: output ?? "" };
    }
    const v2 = this.#shape === "mcp-v2";
    const request = v2 ? callToolInput(name, input, ++this.#requestId) : callInput(name, input);
    if (request === undefined) return { ok: false, error: { tag: "invalid-input", val: "the tool input is not JSON" } };
    const { error, output } = await this.#invoke(v2 ? "call_tool" : "call", request);
    if (error !== undefined) return { ok: false, error: { tag: "failed", val: error } };
    return parseCallOutput(output);
  }

  async #invoke(fn: string, input: string | undefined): Promise<{ error: string | undefined; output: string | undefined }> {
    const state = this.#state;
    state.bytes = input === undefined ? 0 : Buffer.byteLength(input);
    state.blocks = 0;
    state.error = undefined;
    if (state.bytes > this.#options.kernelBytes) throw new ExtismKernelError("the input is larger than the kernel memory budget", state.bytes);
    if (this.#initialize) {
      const initialize = this.#initialize;
      this.#initialize = undefined;
      initialize();
    }
    try {
      // A string, never a Uint8Array: the SDK would keep a view's whole (pooled) buffer.
      const output = await this.#plugin.call([TARGET, fn], input);
      return { error: state.error, output: output === null ? undefined : output.text() };
    } finally {
      // Releases every block of the call; reset refuses only while a call is active.
      await this.#plugin.reset();
    }
  }
}

/** Kernel functions replaced (the SDK merges these over its own): the budget, the error, the channels. */
function kernelFunctions(state: CallState, options: ExtismGuestOptions): Functions {
  const functions: Functions = {
    alloc: (ctx: CallContext, n: bigint) => {
      charge(state, options, BigInt.asUintN(64, n));
      return ctx.alloc(n);
    },
    // Kept here rather than in the SDK's stack so an error is seen even with no output.
    error_set: (ctx: CallContext, addr: bigint) => {
      const block = ctx.read(addr);
      if (block === null) throw new ExtismKernelError("error_set: no block at that address");
      state.error = block.text();
    },
    ...varFunctions(state, options),
  };
  // The configured level, as the PDK reads it to skip lines itself; a line below it that arrives
  // anyway is dropped here, costing no host call (what the JS SDK does).
  const keptFrom = options.logLevel;
  functions[KERNEL_LOG_LEVEL] = () => keptFrom;
  for (const [name, level] of Object.entries(KERNEL_LOG)) {
    const priority = logLevelPriority(level);
    functions[name] = (ctx: CallContext, addr: bigint) => {
      if (priority < keptFrom) return;
      const text = ctx.read(addr)?.text();
      // The log proxy decides (policy, rate, size) and audits; a refusal is not the guest's concern.
      // The run's log has no trace level: a trace line is written at debug.
      if (text !== undefined) options.hostCall("log", "write", [level === "trace" ? "debug" : level, text]);
    };
  }
  Object.assign(
    functions,
    extismChannelFunctions({
      hostCall: options.hostCall,
      wasi: options.wasi,
      charge: (bytes) => charge(state, options, BigInt(bytes)),
      fail: (message) => {
        throw new ExtismKernelError(message);
      },
    }),
  );
  return functions;
}

/** `var_get`/`var_set` over the instance's own copies (see CallState.vars). */
function varFunctions(state: CallState, options: ExtismGuestOptions): Functions {
  return {
    var_get: (ctx: CallContext, keyAddr: bigint): bigint => {
      const value = state.vars.get(readText(ctx, keyAddr, "var_get"));
      if (value === undefined) return 0n;
      charge(state, options, BigInt(value.byteLength));
      return ctx.store(value.slice());
    },
    var_set: (ctx: CallContext, keyAddr: bigint, valueAddr: bigint): void => {
      const key = readText(ctx, keyAddr, "var_set");
      const old = state.vars.get(key);
      const value = valueAddr === 0n ? undefined : ctx.read(valueAddr)?.bytes().slice();
      if (valueAddr !== 0n && value === undefined) throw new ExtismKernelError("var_set: no block at the value's address");
      const bytes = state.varBytes - (old === undefined ? 0 : Buffer.byteLength(key) + old.byteLength) + (value === undefined ? 0 : Buffer.byteLength(key) + value.byteLength);
      if (bytes > MAX_VAR_BYTES) throw new ExtismKernelError(`Extism vars: ${bytes} bytes would exceed the limit of ${MAX_VAR_BYTES}`);
      if (value === undefined) state.vars.delete(key);
      else state.vars.set(key, value);
      state.varBytes = bytes;
    },
  };
}

function readText(ctx: CallContext, addr: bigint, fn: string): string {
  const block = ctx.read(addr);
  if (block === null) throw new ExtismKernelError(`${fn}: no block at that address`);
  return block.text();
}

function charge(state: CallState, options: ExtismGuestOptions, bytes: bigint): void {
  const total = BigInt(state.bytes) + bytes;
  if (total > BigInt(options.kernelBytes)) {
    const wanted = total > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(total);
    throw new ExtismKernelError(`Extism kernel memory: the call would hold ${wanted} bytes of blocks, over its budget of ${options.kernelBytes}`, wanted);
  }
  if (++state.blocks > MAX_BLOCKS_PER_CALL) throw new ExtismKernelError(`Extism kernel memory: more than ${MAX_BLOCKS_PER_CALL} blocks in one call`);
  state.bytes = Number(total);
}

function refuseFetch(): Promise<Response> {
  return Promise.reject(new Error("network access is switched off for Extism plugins"));
}

const silent = (): void => {};
const silentLogger = { info: silent, debug: silent, warn: silent, error: silent, log: silent, trace: silent } as unknown as Console;
