/**
 * Raw floor: what V8 alone costs for a core module — `new WebAssembly.Instance` with stub
 * imports, and one call of a cheap export — with no component glue, no host bridge, no
 * worker. Nothing in the project can be faster than this for the same core module.
 */
import { InvalidInputError } from "../../runtime/errors.js";
import { createImportStubs } from "./_import_stubs.js";
import { readImportTypes } from "./_import_types.js";
import { timeLoop } from "./sample.js";
import type { LoopCounts, PeerFigures } from "./sample.js";

export interface RawPeerOptions {
  /** A zero-parameter function export to time. Default: see `measureRaw`. */
  callExport?: string;
  /**
   * Called after each call with the call's results, as the canonical ABI's post-return does.
   * Default: `cabi_post_<callExport>` when the module exports it.
   */
  postReturnExport?: string;
  /** Default 100 timed instantiations. */
  instance?: LoopCounts;
  /** Default 3000 timed calls. */
  call?: LoopCounts;
  /**
   * Run `globalThis.gc()` (node --expose-gc) after each instantiation, outside the timed span, so
   * instances of a large module do not pile up and push collection into later samples. Default
   * true when gc is exposed.
   */
  gcBetweenInstances?: boolean;
}

export interface RawFigures extends PeerFigures {
  readonly callExport: string;
  readonly postReturnExport: string | undefined;
  /** `new WebAssembly.Module` once, in ms (V8 compiles function bodies lazily, at first call). */
  readonly compileMs: number;
  readonly stubbedImports: number;
  /** Stub import calls per timed call: 0 means the call never left the guest. */
  readonly importCallsPerCall: number;
}

/** Exports that initialise or run a whole program: never a "cheap call" by default. */
const NOT_A_CALL = /^(_start|_initialize|wizer[-.].*|cabi_.*|.*#run)$/;

/**
 * Compiles `coreWasmBytes` once, then times `new WebAssembly.Instance(module, stubs)` (fresh
 * memories, tables, globals and tags per instance when the module imports any; function stubs
 * return zero) and one call of `callExport` on a single instance, followed by
 * `postReturnExport`. Without `callExport`, the first zero-parameter function export that has
 * a `cabi_post_` partner is used, else the first zero-parameter export that is not an
 * initialiser, a `run` entry or a `cabi_` helper.
 */
export async function measureRaw(coreWasmBytes: Uint8Array, options: RawPeerOptions = {}): Promise<RawFigures> {
  const stubs = createImportStubs(readImportTypes(coreWasmBytes));
  const compileStart = process.hrtime.bigint();
  const module = new WebAssembly.Module(ownBuffer(coreWasmBytes));
  const compileMs = Number(process.hrtime.bigint() - compileStart) / 1e6;
  const gc = (options.gcBetweenInstances ?? true) ? (globalThis as { gc?: () => void }).gc : undefined;

  const instanceReady = await timeLoop(() => new WebAssembly.Instance(module, stubs.make()), {
    iterations: options.instance?.iterations ?? 100,
    warmup: options.instance?.warmup ?? 10,
    ...(gc === undefined ? {} : { after: () => gc() }),
  });

  const exports = new WebAssembly.Instance(module, stubs.make()).exports;
  const callExport = options.callExport ?? defaultCallExport(exports);
  const postReturnExport = options.postReturnExport ?? postReturnOf(exports, callExport);
  const call = exportedFunction(exports, callExport, "callExport");
  if (call.length !== 0) {
    throw new InvalidInputError(`raw floor: callExport ${callExport} takes ${call.length} parameters; it must take none`, {
      field: "callExport",
    });
  }
  const postReturn = postReturnExport === undefined ? undefined : exportedFunction(exports, postReturnExport, "postReturnExport");

  const iterations = options.call?.iterations ?? 3000;
  const warmup = options.call?.warmup ?? 300;
  const callsBefore = stubs.calls;
  const sample = await timeLoop(
    postReturn === undefined
      ? () => call()
      : () => {
          const results = call();
          // Multi-value results arrive as an array; post-return takes them flat.
          if (Array.isArray(results)) postReturn(...results);
          else if (results === undefined) postReturn();
          else postReturn(results);
        },
    { iterations, warmup },
  );
  return {
    instanceReady,
    call: sample,
    callExport,
    postReturnExport,
    compileMs,
    stubbedImports: WebAssembly.Module.imports(module).length,
    importCallsPerCall: (stubs.calls - callsBefore) / (iterations + warmup),
  };
}

/** `WebAssembly.Module` takes an ArrayBuffer-backed view; a SharedArrayBuffer-backed one is copied. */
function ownBuffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}

type ExportedFunction = (...args: unknown[]) => unknown;

function exportedFunction(exports: WebAssembly.Exports, name: string, field: string): ExportedFunction {
  const value = exports[name];
  if (typeof value !== "function") {
    throw new InvalidInputError(`raw floor: ${field}: the module exports no function named ${name}`, { field });
  }
  return value as ExportedFunction;
}

function postReturnOf(exports: WebAssembly.Exports, name: string): string | undefined {
  const candidate = `cabi_post_${name}`;
  return typeof exports[candidate] === "function" ? candidate : undefined;
}

function defaultCallExport(exports: WebAssembly.Exports): string {
  const zeroArg = Object.entries(exports)
    .filter(([name, value]) => typeof value === "function" && value.length === 0 && !NOT_A_CALL.test(name))
    .map(([name]) => name);
  const chosen = zeroArg.find((name) => postReturnOf(exports, name) !== undefined) ?? zeroArg[0];
  if (chosen === undefined) {
    throw new InvalidInputError("raw floor: the module exports no zero-parameter function; pass callExport", {
      field: "callExport",
    });
  }
  return chosen;
}
