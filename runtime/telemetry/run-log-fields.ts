/**
 * A run's traced spans as its log lines and its MCP requests see them: which span its work is in
 * now. Apart from run-spans.ts, which reads the runs' events, so that the runs room may ask
 * without an import cycle.
 */
import type { SpanContext } from "@opentelemetry/api";
import { withLogFields } from "../log/context.js";
import { runs } from "./run-span-table.js";

/** The span of run `runId` itself, while it is traced here. */
export function runSpanContext(runId: string): SpanContext | undefined {
  return runs.get(runId)?.span.spanContext();
}

/**
 * The fields a log line written for the run says now: its id, and the span its work is in (the
 * ToolCall's, else the Step's, else the run's) when it is traced here, else its trace id.
 */
export function runLogFields(run: { readonly id: string; readonly traceId: string }): Record<string, string> {
  const spans = runs.get(run.id);
  const span = spans === undefined ? undefined : (spans.current ?? [...spans.steps.values()].at(-1) ?? spans.span).spanContext();
  return span === undefined ? { run_id: run.id, trace_id: run.traceId } : { run_id: run.id, trace_id: span.traceId, span_id: span.spanId };
}

/** Runs `work` of the run so that the log lines written for it say `runLogFields`. */
export function withRunLogFields<T>(run: { readonly id: string; readonly traceId: string }, work: () => T): T {
  return withLogFields(() => runLogFields(run), work);
}
