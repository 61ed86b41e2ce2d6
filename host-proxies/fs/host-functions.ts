/**
 * The bridge's view of the fs proxy: one function per `clawhive:host/fs` import, keyed by the
 * camelCase name jco gives it, taking the raw argument list a guest sent. Arguments are checked
 * here, at the edge, because they come from guest memory, not from typed code.
 */
import { HostProxyError } from "../types.js";
import type { FsProxy } from "./proxy.js";

/** One host function as the bridge calls it. Rejects with `HostProxyError` only. */
export type HostFunction = (args: unknown[]) => Promise<unknown>;

export const FS_HOST_FUNCTION_NAMES = ["mounts", "read", "write", "listDir", "stat", "remove", "mkdir", "walk", "search"] as const;
export type FsHostFunctionName = (typeof FS_HOST_FUNCTION_NAMES)[number];

/**
 * A null-prototype, frozen table: a bridge looking up a guest-chosen name such as `toString`
 * or `__proto__` finds nothing rather than an `Object.prototype` method.
 */
export function fsHostFunctions(proxy: FsProxy): Record<string, HostFunction> {
  const table: Record<FsHostFunctionName, HostFunction> = {
    mounts: async (args) => {
      arity("mounts", args, 0);
      return proxy.mounts();
    },
    read: async (args) => proxy.read(pathArg("read", args, 1)),
    write: async (args) => proxy.write(pathArg("write", args, 2), dataArg(args[1])),
    listDir: async (args) => proxy.listDir(pathArg("listDir", args, 1)),
    stat: async (args) => proxy.stat(pathArg("stat", args, 1)),
    remove: async (args) => proxy.remove(pathArg("remove", args, 1)),
    mkdir: async (args) => proxy.mkdir(pathArg("mkdir", args, 1)),
    // Options are checked by the proxy itself (bulk/options.ts), field by field.
    walk: async (args) => proxy.walk(pathArg("walk", args, 2), args[1]),
    search: async (args) => proxy.search(pathArg("search", args, 2), args[1]),
  };
  return Object.freeze(Object.assign(Object.create(null) as Record<string, HostFunction>, table));
}

function arity(fn: string, args: unknown, count: number): asserts args is unknown[] {
  if (!Array.isArray(args) || args.length !== count) {
    const got = Array.isArray(args) ? `${args.length}` : typeof args;
    throw HostProxyError.invalidInput(`fs.${fn}: expected ${count} argument(s), got ${got}`);
  }
}

function pathArg(fn: string, args: unknown, count: number): string {
  arity(fn, args, count);
  const path = args[0];
  if (typeof path !== "string") throw HostProxyError.invalidInput(`fs.${fn}: path must be a string, got ${describe(path)}`);
  return path;
}

function dataArg(data: unknown): Uint8Array {
  if (!(data instanceof Uint8Array)) throw HostProxyError.invalidInput(`fs.write: data must be a Uint8Array, got ${describe(data)}`);
  return data;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return value.constructor?.name ?? "an object";
  return typeof value;
}
