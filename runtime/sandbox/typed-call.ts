import { lift, lowerArguments, LowerError } from "../plugins/typed/convert.js";
import type { TypedTool } from "../plugins/typed/schema.js";
import { jsName } from "../plugins/typed/wit-types.js";

/** A typed component's tools by name: how each is found in jco's exports and its WIT types. */
export type TypedTools = Readonly<Record<string, TypedTool>>;

export type TypedOutcome =
  | { ok: true; value: string }
  /** A tool error (bad input, the export's `result` error): the instance is unharmed. */
  | { ok: false; payload: { tag: "invalid-input" | "failed" | "not-found"; val: string } }
  /** The guest trapped or broke its own types: the instance is dropped. */
  | { ok: false; trap: unknown };

/**
 * Calls `tool` of a typed component in this worker: JSON input parsed and lowered to the values
 * jco's glue takes, the export called, its result lifted to JSON text. A `result` whose error
 * case comes back (jco throws it as `payload`) is a tool error carrying that error as JSON.
 */
export function callTypedExport(guest: unknown, tools: TypedTools, name: string, input: string): TypedOutcome {
  const tool = Object.hasOwn(tools, name) ? tools[name]! : undefined;
  if (!tool) return { ok: false, payload: { tag: "not-found", val: `no typed tool ${name}` } };
  const fn = exportedFunction(guest, tool);
  if (!fn) return { ok: false, trap: new Error(`the component does not export ${tool.iface ? `${tool.iface}.` : ""}${tool.fn}`) };
  let args: unknown[];
  try {
    args = lowerArguments(tool, JSON.parse(input));
  } catch (error) {
    if (error instanceof LowerError || error instanceof SyntaxError) return { ok: false, payload: { tag: "invalid-input", val: error.message } };
    throw error;
  }
  let value: unknown;
  try {
    value = fn(...args);
  } catch (error) {
    const payload = componentErrorPayload(error);
    if (payload === undefined || tool.result?.kind !== "result") return { ok: false, trap: error };
    try {
      const err = tool.result.err ? lift(tool.result.err, payload.value, "error") : null;
      return { ok: false, payload: { tag: "failed", val: typeof err === "string" ? err : JSON.stringify(err) } };
    } catch (liftError) {
      return { ok: false, trap: liftError };
    }
  }
  try {
    return { ok: true, value: JSON.stringify(liftResult(tool, value)) };
  } catch (error) {
    return { ok: false, trap: error };
  }
}

/** A top-level `result`'s ok value comes back unwrapped (jco throws the error case). */
function liftResult(tool: TypedTool, value: unknown): unknown {
  if (!tool.result) return null;
  if (tool.result.kind === "result") return tool.result.ok ? lift(tool.result.ok, value) : null;
  return lift(tool.result, value);
}

function exportedFunction(guest: unknown, tool: TypedTool): ((...args: unknown[]) => unknown) | undefined {
  if (typeof guest !== "object" || guest === null) return undefined;
  const exports = guest as Record<string, unknown>;
  let holder: unknown = exports;
  if (tool.iface) {
    const short = tool.iface.replace(/@.*$/, "").replace(/^.*[:/]/, "");
    holder = Object.hasOwn(exports, tool.iface) ? exports[tool.iface] : Object.hasOwn(exports, jsName(short)) ? exports[jsName(short)] : undefined;
  }
  if (typeof holder !== "object" || holder === null || !Object.hasOwn(holder, tool.fn)) return undefined;
  const fn = (holder as Record<string, unknown>)[tool.fn];
  return typeof fn === "function" ? (fn as (...args: unknown[]) => unknown) : undefined;
}

/** jco's ComponentError carries a returned `result` error as `payload`; a trap is a WebAssembly.RuntimeError. */
function componentErrorPayload(error: unknown): { value: unknown } | undefined {
  if (!error || typeof error !== "object" || error instanceof WebAssembly.RuntimeError || !("payload" in error)) return undefined;
  return { value: (error as { payload: unknown }).payload };
}
