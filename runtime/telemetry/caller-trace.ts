/**
 * The caller's trace (a valid W3C `traceparent` on a `/v1` or `/mcp` request), for the work the
 * request does: a run it starts takes its trace id and the run's span continues the caller's; a
 * ToolCall it makes of a run started earlier (an MCP `tools/call` in a session) is a span under
 * the caller's. Held for the request's async work only; a malformed header was already dropped
 * by `parseTraceparent`, so the request simply starts a trace of its own.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { TraceFlags, type SpanContext } from "@opentelemetry/api";
import { withLogFields } from "../log/context.js";
import type { TraceParent } from "./traceparent.js";
import { activeTracer } from "./tracing.js";

const callerTrace = new AsyncLocalStorage<TraceParent>();
/** The span of the request this process is serving now, made here (an MCP request's SERVER span). */
const serverSpan = new AsyncLocalStorage<SpanContext>();
/** Callers' spans a run about to start continues, by its trace id (see `callerTraceId`). */
const remoteParents = new Map<string, TraceParent>();
const MAX_REMOTE = 1000;

export function withCallerTrace<T>(parent: TraceParent | undefined, work: () => T): T {
  return parent === undefined ? work() : callerTrace.run(parent, work);
}

/** The trace id a run started now takes from its caller, if the caller sent one. */
export function callerTraceId(): string | undefined {
  const parent = callerTrace.getStore();
  if (parent === undefined) return undefined;
  if (activeTracer() !== undefined) {
    if (remoteParents.size >= MAX_REMOTE) remoteParents.delete(remoteParents.keys().next().value!);
    remoteParents.set(parent.traceId, parent);
  }
  return parent.traceId;
}

/** The caller's span the run with this trace id continues (once: the run's own span then takes over). */
export function takeRemoteParent(traceId: string): SpanContext | undefined {
  const remote = remoteParents.get(traceId);
  if (remote === undefined) return undefined;
  remoteParents.delete(traceId);
  return remoteSpan(remote);
}

/** The span of the request being served now, when its caller sent a valid `traceparent`. */
export function currentCallerSpan(): SpanContext | undefined {
  const parent = callerTrace.getStore();
  return parent === undefined ? undefined : remoteSpan(parent);
}

/**
 * Runs `work` as the serving of a request whose span this process made: a ToolCall it makes is
 * under that span (run-spans.ts), and its log lines name it.
 */
export function withServerSpan<T>(span: SpanContext, work: () => T): T {
  return serverSpan.run(span, () => withLogFields(() => ({ trace_id: span.traceId, span_id: span.spanId }), work));
}

/** The span of the request being served, when this process made one (`withServerSpan`). */
export function currentServerSpan(): SpanContext | undefined {
  return serverSpan.getStore();
}

function remoteSpan(parent: TraceParent): SpanContext {
  return { traceId: parent.traceId, spanId: parent.spanId, traceFlags: parent.flags & TraceFlags.SAMPLED, isRemote: true };
}
