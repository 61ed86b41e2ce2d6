/**
 * The bridge's view of the memory proxy: one function per `clawhive:host/memory` import, taking
 * the raw argument list a guest sent. Arguments are checked here, at the edge, because they
 * come from guest memory (an Extism guest sends JSON, so a record may hold anything).
 */
import { HostProxyError } from "../types.js";
import type { MemoryProxy } from "./proxy.js";

type HostFunction = (args: unknown[]) => Promise<unknown>;

export const MEMORY_HOST_FUNCTION_NAMES = ["search", "write"] as const;

/** A null-prototype, frozen table (see fsHostFunctions). */
export function memoryHostFunctions(proxy: MemoryProxy): Record<string, HostFunction> {
  const table: Record<(typeof MEMORY_HOST_FUNCTION_NAMES)[number], HostFunction> = {
    search: async (args) => {
      const [query, options] = twoArgs("search", args);
      if (typeof query !== "string") throw HostProxyError.invalidInput("memory.search: query must be a string");
      const k = options.k;
      if (k !== undefined && typeof k !== "number") throw HostProxyError.invalidInput("memory.search: k must be a number or none");
      return proxy.search(query, { scope: optionalString("search", "scope", options.scope), k });
    },
    write: async (args) => {
      const [text, options] = twoArgs("write", args);
      if (typeof text !== "string") throw HostProxyError.invalidInput("memory.write: text must be a string");
      return proxy.write(text, { scope: optionalString("write", "scope", options.scope), title: optionalString("write", "title", options.title) });
    },
  };
  return Object.freeze(Object.assign(Object.create(null) as Record<string, HostFunction>, table));
}

function twoArgs(fn: string, args: unknown): [unknown, Record<string, unknown>] {
  if (!Array.isArray(args) || args.length !== 2) throw HostProxyError.invalidInput(`memory.${fn}: expected 2 arguments`);
  const options = args[1];
  if (options === null || typeof options !== "object" || Array.isArray(options)) throw HostProxyError.invalidInput(`memory.${fn}: options must be a record`);
  return [args[0], options as Record<string, unknown>];
}

function optionalString(fn: string, field: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw HostProxyError.invalidInput(`memory.${fn}: ${field} must be a string or none`);
  return value;
}
