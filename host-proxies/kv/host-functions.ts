/**
 * The bridge's view of the kv proxy: one function per `clawhive:host/kv` import, keyed by the
 * camelCase name jco gives it (`delete` keeps its WIT name on the host side; only the guest's
 * generated module has to rename it, see plugins/sdk/host.d.ts), taking the raw argument list a
 * guest sent. Arguments are checked here, at the edge, because they come from guest memory.
 */
import { HostProxyError } from "../types.js";
import type { KvProxy } from "./proxy.js";

/** One host function as the bridge calls it. Rejects with `HostProxyError` only. */
type HostFunction = (args: unknown[]) => Promise<unknown>;

export const KV_HOST_FUNCTION_NAMES = ["get", "set", "delete", "listKeys"] as const;
export type KvHostFunctionName = (typeof KV_HOST_FUNCTION_NAMES)[number];

/** A null-prototype, frozen table (see fsHostFunctions). */
export function kvHostFunctions(proxy: KvProxy): Record<string, HostFunction> {
  const table: Record<KvHostFunctionName, HostFunction> = {
    get: async (args) => proxy.get(keyArg("get", args, 1)),
    set: async (args) => {
      const key = keyArg("set", args, 2);
      const value = args[1];
      if (!(value instanceof Uint8Array)) throw HostProxyError.invalidInput(`kv.set: value must be a Uint8Array, got ${describe(value)}`);
      return proxy.set(key, value);
    },
    delete: async (args) => proxy.delete(keyArg("delete", args, 1)),
    listKeys: async (args) => {
      arity("listKeys", args, 1);
      // `option<string>`: jco passes `undefined` for none.
      const prefix = args[0];
      if (prefix !== undefined && typeof prefix !== "string") {
        throw HostProxyError.invalidInput(`kv.listKeys: prefix must be a string or none, got ${describe(prefix)}`);
      }
      return proxy.listKeys(prefix);
    },
  };
  return Object.freeze(Object.assign(Object.create(null) as Record<string, HostFunction>, table));
}

function arity(fn: string, args: unknown, count: number): asserts args is unknown[] {
  if (!Array.isArray(args) || args.length !== count) {
    const got = Array.isArray(args) ? `${args.length}` : typeof args;
    throw HostProxyError.invalidInput(`kv.${fn}: expected ${count} argument(s), got ${got}`);
  }
}

function keyArg(fn: string, args: unknown, count: number): string {
  arity(fn, args, count);
  const key = args[0];
  if (typeof key !== "string") throw HostProxyError.invalidInput(`kv.${fn}: key must be a string, got ${describe(key)}`);
  return key;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return value.constructor?.name ?? "an object";
  return typeof value;
}
