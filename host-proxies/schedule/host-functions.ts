/**
 * The bridge's view of the schedule proxy: one function per `clawhive:host/schedule` import,
 * keyed by the name jco gives it, taking the raw argument list a guest sent. Arity and types are
 * checked here, at the edge; the spec's fields in spec.ts.
 */
import { HostProxyError } from "../types.js";
import type { ScheduleProxy } from "./proxy.js";

/** One host function as the bridge calls it. Rejects with `HostProxyError` only. */
type HostFunction = (args: unknown[]) => Promise<unknown>;

export const SCHEDULE_HOST_FUNCTION_NAMES = ["list", "create", "cancel"] as const;
export type ScheduleHostFunctionName = (typeof SCHEDULE_HOST_FUNCTION_NAMES)[number];

/** A null-prototype, frozen table (see fsHostFunctions). */
export function scheduleHostFunctions(proxy: ScheduleProxy): Record<string, HostFunction> {
  const table: Record<ScheduleHostFunctionName, HostFunction> = {
    list: async (args) => {
      arity("list", args, 0);
      return proxy.list();
    },
    create: async (args) => {
      arity("create", args, 1);
      return proxy.create(args[0]);
    },
    cancel: async (args) => {
      arity("cancel", args, 1);
      if (typeof args[0] !== "string") throw HostProxyError.invalidInput("schedule.cancel: id must be a string");
      return proxy.cancel(args[0]);
    },
  };
  return Object.freeze(Object.assign(Object.create(null) as Record<string, HostFunction>, table));
}

function arity(fn: string, args: unknown, count: number): asserts args is unknown[] {
  if (!Array.isArray(args) || args.length !== count) {
    throw HostProxyError.invalidInput(`schedule.${fn}: expected ${count} argument(s), got ${Array.isArray(args) ? args.length : typeof args}`);
  }
}
