import { hostError } from "./host-error.js";
import { ToolFailure } from "./tool-failure.js";
import type { ToolError } from "./types.js";

/** Text of any value, without ever throwing (a thrown object's `toString` may throw). */
function text(value: unknown): string {
  try {
    if (value instanceof Error) return value.message === "" ? value.name : value.message;
    return String(value);
  } catch {
    return "unreadable value";
  }
}

/** A `tool-error` variant thrown as is, `throw {tag: 'failed', val: '…'}`, as WIT guests do. */
function isToolError(e: unknown): e is ToolError {
  if (typeof e !== "object" || e === null) return false;
  const { tag, val } = e as { tag?: unknown; val?: unknown };
  if (tag === "denied") return typeof val === "object" && val !== null;
  return (tag === "invalid-input" || tag === "not-found" || tag === "failed") && typeof val === "string";
}

/**
 * A fresh, well-typed copy of `error`. Lowering a variant whose fields have the wrong types
 * would throw inside the export's glue and trap the instance, so every field is forced to a
 * string here, and nothing else the thrower attached is carried along.
 */
function sanitize(error: ToolError): ToolError {
  if (error.tag === "denied") {
    const { capability, reason, message } = error.val;
    return { tag: "denied", val: { capability: text(capability), reason: text(reason), message: text(message) } };
  }
  return { tag: error.tag, val: text(error.val) };
}

function convert(e: unknown): ToolError {
  if (e instanceof ToolFailure) return sanitize(e.error);
  // A host error is read first; `denied`, `not-found` and `invalid-input` mean the same in both.
  const host = hostError(e);
  if (host !== undefined) return host.tag === "io" ? sanitize({ tag: "failed", val: host.val }) : sanitize(host);
  if (isToolError(e)) return sanitize(e);
  return { tag: "failed", val: text(e) };
}

/**
 * The `tool-error` for anything a tool threw: a `ToolFailure` or a bare `tool-error` variant
 * keeps its case; a failed host call keeps its meaning (`denied`, `not-found` and
 * `invalid-input` as they are, `io` as `failed`); anything else becomes `failed` with its
 * message. Never throws: what it returns is thrown from an export, where an `Error` would trap.
 */
export function toToolError(e: unknown): ToolError {
  try {
    return convert(e);
  } catch {
    // A getter on the thrown value threw while it was read.
    return { tag: "failed", val: "the tool failed with an error that could not be read" };
  }
}
