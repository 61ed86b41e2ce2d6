/**
 * MCP server spans, per the OpenTelemetry semantic conventions for MCP (gen-ai/mcp.md, "Server"):
 * one SpanKind SERVER span per request or notification a client sends, named
 * `{mcp.method.name} {target}` (`tools/call files__read_file`, `tools/list`), from its arrival to
 * its response. Its parent is the trace context the client put in the request's `params._meta`
 * (`traceparent`, `tracestate`: SEP-414), else the transport's (an HTTP request's `traceparent`),
 * else the session's run; with a `_meta` parent, a different transport context is linked. The
 * ToolCall a `tools/call` makes is this span's child (run-spans.ts). Read at the transport, so
 * every method is seen, `initialize` and `ping` included, whichever handler answers it.
 */
import { context, createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Link, type Span, type SpanContext, type Tracer } from "@opentelemetry/api";
import { currentCallerSpan, withServerSpan } from "./caller-trace.js";
import { parseTraceparent } from "./traceparent.js";
import { activeTracer } from "./tracing.js";

/** The part of an MCP SDK transport this reads: messages in (`onmessage`) and out (`send`). */
export interface TracedTransport {
  onmessage?: ((message: never, extra?: never) => void) | undefined;
  onclose?: (() => void) | undefined;
  send(message: never, options?: never): Promise<void>;
}

export interface McpServerTraceOptions {
  /** OpenTelemetry `network.transport`: `pipe` for stdio, `tcp` for streamable HTTP. */
  readonly network: "pipe" | "tcp";
  /** The session's id (`Mcp-Session-Id`, or the stdio session's own), once there is one. */
  readonly sessionId: () => string | undefined;
  /** Where a request with no trace context of its own goes: the session's run span. */
  readonly fallbackParent: () => SpanContext | undefined;
}

interface Message {
  readonly jsonrpc?: unknown;
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: { readonly name?: unknown; readonly requestId?: unknown; readonly _meta?: { readonly traceparent?: unknown; readonly tracestate?: unknown } };
  readonly result?: { readonly isError?: unknown; readonly protocolVersion?: unknown };
  readonly error?: { readonly code?: unknown; readonly message?: unknown };
}

/** Requests answered by nobody (a client that never cancels what it gave up on) end at this many. */
const MAX_OPEN = 1000;

/** Traces what `transport` (already connected to its server) carries from here on. */
export function traceMcpServer(transport: TracedTransport, options: McpServerTraceOptions): void {
  const receive = transport.onmessage as ((message: Message, extra?: unknown) => void) | undefined;
  const send = transport.send.bind(transport) as (message: Message, sendOptions?: unknown) => Promise<void>;
  const closed = transport.onclose;
  if (receive === undefined) return;
  const open = new Map<unknown, Span>();
  let protocolVersion: string | undefined;
  const finish = (span: Span, errorType?: string, message?: string) => {
    if (errorType !== undefined) {
      span.setAttribute("error.type", errorType);
      span.setStatus({ code: SpanStatusCode.ERROR, ...(message === undefined ? {} : { message }) });
    }
    span.end();
  };
  const end = (id: unknown, errorType: string, message?: string) => {
    const span = open.get(id);
    if (span === undefined) return;
    open.delete(id);
    finish(span, errorType, message);
  };
  (transport as { onmessage: unknown }).onmessage = (message: Message, extra?: unknown) => {
    const tracer = activeTracer();
    if (tracer === undefined || typeof message?.method !== "string") return receive.call(transport, message, extra);
    const span = serverSpan(tracer, message, { ...options, protocolVersion });
    const isRequest = message.id !== undefined && message.id !== null;
    if (isRequest) {
      if (open.size >= MAX_OPEN) end(open.keys().next().value, "unanswered");
      open.set(message.id, span);
    }
    // A cancelled request is not answered (MCP "Cancellation"): its span ends here.
    if (message.method === "notifications/cancelled") end(message.params?.requestId, "cancelled", "the client cancelled the request");
    try {
      return withServerSpan(span.spanContext(), () => receive.call(transport, message, extra));
    } finally {
      // A notification has no answer: its span is its handling.
      if (!isRequest) span.end();
    }
  };
  (transport as { send: unknown }).send = (message: Message, sendOptions?: unknown) => {
    const span = message.method === undefined ? open.get(message.id) : undefined;
    if (span !== undefined) {
      open.delete(message.id);
      if (typeof message.result?.protocolVersion === "string") {
        protocolVersion = message.result.protocolVersion;
        span.setAttribute("mcp.protocol.version", protocolVersion);
      }
      const sessionId = options.sessionId();
      if (sessionId !== undefined) span.setAttribute("mcp.session.id", sessionId);
      if (message.error !== undefined) {
        const code = String(message.error.code);
        span.setAttribute("rpc.response.status_code", code);
        finish(span, code, typeof message.error.message === "string" ? message.error.message : undefined);
      } else finish(span, message.result?.isError === true ? "tool_error" : undefined);
    }
    return send(message, sendOptions);
  };
  transport.onclose = () => {
    for (const span of open.values()) finish(span, "connection_closed", "the session closed before the answer");
    open.clear();
    closed?.call(transport);
  };
}

function serverSpan(tracer: Tracer, message: Message, options: McpServerTraceOptions & { protocolVersion: string | undefined }): Span {
  const method = message.method as string;
  const tool = method === "tools/call" || method === "prompts/get" ? message.params?.name : undefined;
  const target = typeof tool === "string" && tool.length <= 256 ? tool : undefined;
  const attributes: Attributes = { "mcp.method.name": method, "network.transport": options.network };
  if (options.network === "tcp") attributes["network.protocol.name"] = "http";
  if (typeof message.jsonrpc === "string" && message.jsonrpc !== "2.0") attributes["jsonrpc.protocol.version"] = message.jsonrpc;
  if (typeof message.id === "string" || typeof message.id === "number") attributes["jsonrpc.request.id"] = String(message.id);
  const sessionId = options.sessionId();
  if (sessionId !== undefined) attributes["mcp.session.id"] = sessionId;
  if (options.protocolVersion !== undefined) attributes["mcp.protocol.version"] = options.protocolVersion;
  if (target !== undefined) {
    attributes[method === "tools/call" ? "gen_ai.tool.name" : "gen_ai.prompt.name"] = target;
    if (method === "tools/call") attributes["gen_ai.operation.name"] = "execute_tool";
  }
  const { parent, links } = parentOf(message, options);
  return tracer.startSpan(target === undefined ? method : `${method} ${target}`, { kind: SpanKind.SERVER, attributes, links }, parent);
}

/** `params._meta`'s trace context, else the transport's, else the session run's; see the file's comment. */
function parentOf(message: Message, options: McpServerTraceOptions): { parent: Context; links: Link[] } {
  const meta = message.params?._meta;
  const fromMeta = typeof meta?.traceparent === "string" ? parseTraceparent(meta.traceparent) : undefined;
  const ambient = currentCallerSpan();
  if (fromMeta !== undefined) {
    const remote: SpanContext = { traceId: fromMeta.traceId, spanId: fromMeta.spanId, traceFlags: fromMeta.flags & TraceFlags.SAMPLED, isRemote: true };
    const state = typeof meta?.tracestate === "string" && meta.tracestate.length <= 512 ? meta.tracestate : undefined;
    if (state !== undefined) remote.traceState = createTraceState(state);
    const links = ambient !== undefined && ambient.spanId !== remote.spanId ? [{ context: ambient }] : [];
    return { parent: trace.setSpanContext(ROOT_CONTEXT, remote), links };
  }
  const own = ambient ?? options.fallbackParent();
  return { parent: own === undefined ? context.active() : trace.setSpanContext(ROOT_CONTEXT, own), links: [] };
}
