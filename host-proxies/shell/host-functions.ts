/**
 * The bridge's view of the shell proxy: `exec`, keyed as jco names it, taking the raw argument
 * list a guest sent. The request record is checked here, at the edge, because it comes from
 * guest memory, not from typed code; then canonicalised, then run (STYLE habit 6).
 */
import { HostProxyError } from "../types.js";
import type { ShellProxy } from "./proxy.js";
import type { ExecRequest, ExecResult } from "./types.js";

/** One host function as the bridge calls it. Rejects with `HostProxyError` only. */
export type HostFunction = (args: unknown[]) => Promise<unknown>;

export const SHELL_HOST_FUNCTION_NAMES = ["exec"] as const;
export type ShellHostFunctionName = (typeof SHELL_HOST_FUNCTION_NAMES)[number];

const REQUEST_KEYS: ReadonlySet<string> = new Set(["argv", "cwd", "stdin", "timeoutMs"]);
const U32_MAX = 0xffff_ffff;

/**
 * A null-prototype, frozen table: a bridge looking up a guest-chosen name such as `toString`
 * or `__proto__` finds nothing rather than an `Object.prototype` method.
 */
export function shellHostFunctions(proxy: ShellProxy): Record<string, HostFunction> {
  const table: Record<ShellHostFunctionName, HostFunction> = {
    exec: async (args): Promise<ExecResult> => proxy.exec(proxy.canonicalize(requestArg(args))),
  };
  return Object.freeze(Object.assign(Object.create(null) as Record<string, HostFunction>, table));
}

function requestArg(args: unknown): ExecRequest {
  if (!Array.isArray(args) || args.length !== 1) {
    const got = Array.isArray(args) ? `${args.length}` : typeof args;
    throw HostProxyError.invalidInput(`shell.exec: expected 1 argument, got ${got}`);
  }
  const raw: unknown = args[0];
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw HostProxyError.invalidInput(`shell.exec: request must be a record, got ${describe(raw)}`);
  }
  const record = raw as Record<string, unknown>;
  const unknownKey = Object.keys(record).find((k) => !REQUEST_KEYS.has(k));
  if (unknownKey !== undefined) throw HostProxyError.invalidInput(`shell.exec: unknown request field ${JSON.stringify(unknownKey.slice(0, 40))}`);
  const { argv, cwd, stdin, timeoutMs } = record;
  if (!Array.isArray(argv) || !argv.every((a) => typeof a === "string")) {
    throw HostProxyError.invalidInput(`shell.exec: argv must be a list of strings, got ${describe(argv)}`);
  }
  if (cwd !== undefined && typeof cwd !== "string") throw HostProxyError.invalidInput(`shell.exec: cwd must be a string, got ${describe(cwd)}`);
  if (stdin !== undefined && !(stdin instanceof Uint8Array)) throw HostProxyError.invalidInput(`shell.exec: stdin must be a Uint8Array, got ${describe(stdin)}`);
  if (timeoutMs !== undefined && (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 0 || timeoutMs > U32_MAX)) {
    throw HostProxyError.invalidInput(`shell.exec: timeoutMs must be a u32, got ${describe(timeoutMs)}`);
  }
  return { argv: [...(argv as string[])], cwd, stdin, timeoutMs };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return value.constructor?.name ?? "an object";
  return typeof value;
}
