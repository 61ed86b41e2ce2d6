/**
 * What the work being done says about itself on every log line written for it: `run_id`,
 * `trace_id` and `span_id` while a run's ToolCall or an MCP request is served. A scope holds
 * functions, read when a line is written, so a line carries the span current then (a ToolCall's,
 * a Step's), not the one current when the scope was entered. Scopes nest; an inner field wins.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export type LogFields = () => Readonly<Record<string, string | undefined>>;

const scopes = new AsyncLocalStorage<readonly LogFields[]>();

export function withLogFields<T>(fields: LogFields, work: () => T): T {
  return scopes.run([...(scopes.getStore() ?? []), fields], work);
}

/** The fields of the work current now; empty outside every scope. */
export function contextLogFields(): Record<string, string> {
  const stack = scopes.getStore();
  const out: Record<string, string> = {};
  if (stack === undefined) return out;
  for (const fields of stack) {
    for (const [key, value] of Object.entries(fields())) if (value !== undefined) out[key] = value;
  }
  return out;
}
