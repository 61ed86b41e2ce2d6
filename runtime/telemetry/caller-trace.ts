/**
 * The caller's trace (a valid W3C `traceparent` on a `/v1` or `/mcp` request), for the runs the
 * request starts: they take its trace id and their span continues the caller's. Held for the
 * request's async work only; a malformed header was already dropped by `parseTraceparent`.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { continueTrace } from "./run-spans.js";
import type { TraceParent } from "./traceparent.js";

const callerTrace = new AsyncLocalStorage<TraceParent>();

export function withCallerTrace<T>(parent: TraceParent | undefined, work: () => T): T {
  return parent === undefined ? work() : callerTrace.run(parent, work);
}

/** The trace id a run started now takes from its caller, if the caller sent one. */
export function callerTraceId(): string | undefined {
  const parent = callerTrace.getStore();
  if (parent === undefined) return undefined;
  continueTrace(parent);
  return parent.traceId;
}
