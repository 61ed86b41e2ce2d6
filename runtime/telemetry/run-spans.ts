/**
 * A run's span tree, built from what the run already reports: run → step → model call, step →
 * tool call → host call, and a sub-agent's run under its parent's. Attributes follow the
 * OpenTelemetry GenAI and HTTP semantic conventions (model, tokens, tool name, the policy's
 * decision); never a prompt, an argument, an output or a secret.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span } from "@opentelemetry/api";
import type { LlmProvider, LlmRequest, LlmResponse } from "../llm/index.js";
import type { Run } from "../runs/run.js";
import type { RunEvent, StepEvent } from "../runs/types.js";
import { currentCallerSpan, currentServerSpan, takeRemoteParent } from "./caller-trace.js";
import { runs, type RunSpans } from "./run-span-table.js";
import { formatTraceparent } from "./traceparent.js";
import { activeTracer, withTraceId } from "./tracing.js";


/**
 * Every span's start and end, from one clock: epoch milliseconds with the monotonic clock's
 * fraction. Left to itself a span anchors its start on `Date.now()` (whole milliseconds) and adds
 * the monotonic time since, so two spans' ends could be up to a millisecond out of order: a tool
 * call that ended just before its Step would seem to end after it.
 */
const clock = (): number => performance.timeOrigin + performance.now();

/** Opens the run's span and follows its events until it ends; nothing when tracing is off. */
export function observeRun(run: Run): void {
  const tracer = activeTracer();
  if (tracer === undefined || runs.has(run.id)) return;
  const parent = parentContext(run);
  const attributes: Attributes = { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": run.agent.name, "clawhive.run.id": run.id, "clawhive.task.id": run.taskId };
  if (run.parentRunId !== null) attributes["clawhive.parent_run.id"] = run.parentRunId;
  const start = () => tracer.startSpan(`invoke_agent ${run.agent.name}`, { kind: SpanKind.INTERNAL, attributes, startTime: clock() }, parent);
  const span = trace.getSpan(parent) === undefined ? withTraceId(run.traceId, start) : start();
  const spans: RunSpans = { span, steps: new Map(), toolCalls: new Map(), current: undefined };
  runs.set(run.id, spans);
  const off = run.onEvent((event) => {
    onEvent(spans, event);
    if (event.type === "run-ended") {
      off();
      runs.delete(run.id);
    }
  });
}

function parentContext(run: Run): Context {
  const parentRun = run.parentRunId === null ? undefined : runs.get(run.parentRunId);
  if (parentRun !== undefined) return trace.setSpan(context.active(), parentRun.current ?? parentRun.span);
  const remote = takeRemoteParent(run.traceId);
  return remote === undefined ? context.active() : trace.setSpanContext(context.active(), remote);
}

/**
 * Spans take the real time an event arrives (events are emitted as things happen), never the
 * event's `at`: that is the runtime's clock, which a test or a replay may set anywhere. An
 * unsampled run (a caller's `traceparent` without the sampled flag) costs no attribute work: its
 * children would not be recorded either.
 */
function onEvent(spans: RunSpans, event: RunEvent): void {
  const tracer = activeTracer();
  if (tracer === undefined || !spans.span.isRecording()) {
    if (event.type === "run-ended") spans.span.end(clock());
    return;
  }
  switch (event.type) {
    case "tool-call": {
      const { parent, links } = toolCallParent(spans, event.stepId);
      const span = tracer.startSpan(`execute_tool ${event.tool}`, { kind: SpanKind.INTERNAL, links, startTime: clock(), attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": event.tool, "gen_ai.tool.call.id": event.id, "clawhive.step.id": event.stepId } }, parent);
      spans.toolCalls.set(event.id, span);
      spans.current = span;
      return;
    }
    case "tool-result": {
      const span = spans.toolCalls.get(event.id);
      if (span === undefined) return;
      spans.toolCalls.delete(event.id);
      span.setAttribute("clawhive.tool_call.status", event.status);
      if (event.status === "error") {
        span.setAttribute("error.type", event.error?.kind ?? "error");
        span.setStatus({ code: SpanStatusCode.ERROR, message: event.error?.kind ?? "error" });
      }
      span.end(clock());
      if (spans.current === span) spans.current = undefined;
      return;
    }
    case "host-call": {
      const parent = (event.toolCallId === undefined ? undefined : spans.toolCalls.get(event.toolCallId)) ?? spans.span;
      const attributes: Attributes = { "clawhive.host_call": event.call, "clawhive.capability": event.capability, "clawhive.policy.decision": event.denial === undefined ? "allow" : "deny" };
      if (event.denial !== undefined) attributes["clawhive.denial.reason"] = event.denial.reason;
      // The event comes with the call's outcome: the span starts when the call arrived.
      const end = clock();
      const span = tracer.startSpan(`host ${event.call}`, { kind: SpanKind.INTERNAL, startTime: end - Math.max(0, event.durationMs ?? 0), attributes }, trace.setSpan(context.active(), parent));
      if (!event.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: event.denial?.reason ?? "failed" });
      span.end(end);
      return;
    }
    case "approval-required": {
      (spans.toolCalls.get(event.toolCallId) ?? spans.span).addEvent("approval_required", { "clawhive.approval.id": event.approval.id, "clawhive.approval.kind": event.approval.kind });
      return;
    }
    case "step":
      return stepEvent(spans, event);
    case "run-ended": {
      for (const span of [...spans.toolCalls.values(), ...spans.steps.values()]) span.end(clock());
      spans.span.setAttribute("clawhive.run.end_reason", event.reason ?? "completed");
      if (event.reason === "failed") spans.span.setStatus({ code: SpanStatusCode.ERROR, message: "failed" });
      spans.span.end(clock());
      return;
    }
    default:
      return;
  }
}

/**
 * A ToolCall's span is under its Step's (or the run's). A ToolCall a caller asks for directly
 * (no model Step) in a request that came with a trace of its own — an MCP `tools/call` in a
 * session whose run started under another trace — joins the caller's trace instead, under the
 * caller's span, linked to the run's span. A model's ToolCall stays under its Step whoever
 * resumed the run (a person's approval request, say).
 */
function toolCallParent(spans: RunSpans, stepId: string): { parent: Context; links: Link[] } {
  const step = spans.steps.get(stepId);
  const own = step ?? spans.span;
  // A request span of our own (an MCP `tools/call`): the ToolCall is its work, in its trace.
  const server = step === undefined ? currentServerSpan() : undefined;
  if (server !== undefined) return { parent: trace.setSpanContext(context.active(), server), links: server.traceId === own.spanContext().traceId ? [] : [{ context: own.spanContext() }] };
  const caller = step === undefined ? currentCallerSpan() : undefined;
  if (caller === undefined || caller.traceId === own.spanContext().traceId) return { parent: trace.setSpan(context.active(), own), links: [] };
  return { parent: trace.setSpanContext(context.active(), caller), links: [{ context: own.spanContext() }] };
}

/** A Step's span ends when the next one starts or the run ends; its attributes come with its event. */
function stepEvent(spans: RunSpans, event: StepEvent): void {
  const span = spans.steps.get(event.stepId);
  if (span === undefined) return;
  span.setAttribute("clawhive.step.action", event.action);
  if (event.reason !== undefined) span.setAttribute("clawhive.step.reason", event.reason);
  if (event.action !== "tool_call") {
    span.end(clock());
    spans.steps.delete(event.stepId);
  }
}

function stepSpan(spans: RunSpans, stepId: string): Span {
  const existing = spans.steps.get(stepId);
  if (existing !== undefined) return existing;
  for (const [id, open] of spans.steps) {
    open.end(clock());
    spans.steps.delete(id);
  }
  const tracer = activeTracer()!;
  const span = tracer.startSpan(`step ${stepId}`, { kind: SpanKind.INTERNAL, startTime: clock(), attributes: { "clawhive.step.id": stepId } }, trace.setSpan(context.active(), spans.span));
  spans.steps.set(stepId, span);
  return span;
}

export interface ModelCallSpan {
  /** To send with the call: `traceparent` of the model call's span. */
  readonly headers: Record<string, string>;
  end(outcome: { response: LlmResponse } | { error: unknown }): void;
}

const NO_SPAN: ModelCallSpan = { headers: {}, end: () => undefined };

/** The span of one model call of a Step (GenAI client span); nothing when tracing is off. */
export function modelCallSpan(run: Run, stepId: string, provider: LlmProvider, request: LlmRequest): ModelCallSpan {
  const tracer = activeTracer();
  const spans = runs.get(run.id);
  if (tracer === undefined || spans === undefined) return NO_SPAN;
  if (!spans.span.isRecording()) return { headers: { traceparent: traceparentOf(spans.span) }, end: () => undefined };
  const step = stepSpan(spans, stepId);
  const attributes: Attributes = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": provider.provider,
    "gen_ai.system": provider.provider,
    "gen_ai.request.model": provider.model,
    "http.request.method": "POST",
  };
  if (request.max_tokens !== undefined) attributes["gen_ai.request.max_tokens"] = request.max_tokens;
  const host = hostOf(provider.baseUrl);
  if (host !== undefined) attributes["server.address"] = host;
  const span = tracer.startSpan(`chat ${provider.model}`, { kind: SpanKind.CLIENT, attributes, startTime: clock() }, trace.setSpan(context.active(), step));
  return {
    headers: { traceparent: traceparentOf(span) },
    end(outcome) {
      if ("response" in outcome) {
        const { response } = outcome;
        span.setAttributes({
          "gen_ai.response.model": response.model,
          "gen_ai.usage.input_tokens": response.usage.input_tokens,
          "gen_ai.usage.output_tokens": response.usage.output_tokens,
          "gen_ai.response.finish_reasons": [String(response.stop_reason)],
        });
      } else {
        const code = (outcome.error as { code?: unknown } | null)?.code;
        span.setAttribute("error.type", typeof code === "string" ? code : "error");
        span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === "string" ? code : "error" });
      }
      span.end(clock());
    },
  };
}

function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return formatTraceparent({ traceId, spanId, flags: traceFlags });
}

function hostOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
