/**
 * OpenTelemetry traces, off unless started (`telemetry.otlp_endpoint` in clawhive.yaml, or a
 * test's exporter). The code speaks `@opentelemetry/api`; this file owns the SDK: one tracer
 * provider whose root spans take the run's own `trace_id` (so a trace in a backend and the
 * run's audit records share one id), a batch processor and the OTLP/HTTP exporter.
 */
import { randomBytes } from "node:crypto";
import { type Tracer } from "@opentelemetry/api";
import type { BasicTracerProvider, IdGenerator, SpanExporter } from "@opentelemetry/sdk-trace-base";

export interface TracingOptions {
  /** OTLP/HTTP traces endpoint, e.g. `http://127.0.0.1:4318/v1/traces`. */
  readonly otlpEndpoint?: string;
  /** Instead of OTLP (tests, bench): spans are handed to it one by one as they end, or in batches as OTLP's are with `batch`. */
  readonly exporter?: SpanExporter;
  readonly batch?: boolean;
  readonly serviceName?: string;
  readonly serviceVersion?: string;
  /** How long one export to the OTLP endpoint may take (default 10 s): a command's end waits for it. */
  readonly exportTimeoutMs?: number;
}

const ZERO_SPAN_ID = "0".repeat(16);
const ZERO_TRACE_ID = "0".repeat(32);

/**
 * Trace ids from the run (see `withTraceId`), span ids random. Random bytes are drawn 4 KiB at a
 * time: one `randomBytes` call per span was a measurable part of a traced ToolCall's cost.
 */
class RunTraceIds implements IdGenerator {
  next: string | undefined;
  #pool = Buffer.alloc(0);
  #offset = 0;
  generateTraceId(): string {
    const id = this.next ?? this.#hex(16);
    this.next = undefined;
    return id;
  }
  generateSpanId(): string {
    return this.#hex(8);
  }
  #hex(bytes: number): string {
    if (this.#offset + bytes > this.#pool.length) {
      this.#pool = randomBytes(4096);
      this.#offset = 0;
    }
    const id = this.#pool.toString("hex", this.#offset, this.#offset + bytes);
    this.#offset += bytes;
    // All-zero ids are invalid (W3C Trace Context); a draw of them is vanishingly rare but cheap to refuse.
    return id === ZERO_SPAN_ID || id === ZERO_TRACE_ID ? this.#hex(bytes) : id;
  }
}

interface Tracing {
  readonly provider: BasicTracerProvider;
  readonly tracer: Tracer;
  readonly ids: RunTraceIds;
}

let active: Tracing | undefined;

export async function startTracing(options: TracingOptions): Promise<void> {
  if (options.exporter === undefined && options.otlpEndpoint === undefined) return;
  // The SDK and the exporter load only when tracing is on: every process would otherwise pay
  // ~300 ms of module loading for them (a `clawhive call` above all).
  const [{ BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor }, { resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/resources"),
  ]);
  const ids = new RunTraceIds();
  const exporter = options.exporter ?? new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter({ url: options.otlpEndpoint!, timeoutMillis: options.exportTimeoutMs ?? 10_000 });
  const processor =
    options.exporter !== undefined && options.batch !== true
      ? new SimpleSpanProcessor(exporter)
      : new BatchSpanProcessor(exporter, { maxQueueSize: 4096, scheduledDelayMillis: 1000 });
  const provider = new BasicTracerProvider({
    idGenerator: ids,
    resource: resourceFromAttributes({ "service.name": options.serviceName ?? "clawhive", ...(options.serviceVersion === undefined ? {} : { "service.version": options.serviceVersion }) }),
    spanProcessors: [processor],
  });
  active = { provider, tracer: provider.getTracer("clawhive"), ids };
}

/** Flushes what is queued and stops; tracing is off afterwards. */
export async function stopTracing(): Promise<void> {
  const stopping = active;
  active = undefined;
  if (stopping !== undefined) await stopping.provider.shutdown();
}

export async function flushTracing(): Promise<void> {
  await active?.provider.forceFlush();
}

/** The tracer, or undefined when tracing is off (callers then do nothing at all). */
export function activeTracer(): Tracer | undefined {
  return active?.tracer;
}

/** Runs `start` (which must start exactly one root span, synchronously) so its trace id is `traceId`. */
export function withTraceId<T>(traceId: string, start: () => T): T {
  if (active === undefined || !/^[0-9a-f]{32}$/.test(traceId)) return start();
  active.ids.next = traceId;
  try {
    return start();
  } finally {
    active.ids.next = undefined;
  }
}
