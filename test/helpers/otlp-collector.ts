/**
 * A local OTLP/HTTP traces receiver (`POST /v1/traces`, the OTLP JSON encoding the
 * `@opentelemetry/exporter-trace-otlp-http` exporter sends: resourceSpans → scopeSpans → spans,
 * hex ids, numeric kinds, typed attribute values), listening on 127.0.0.1. Each span is kept with
 * its resource's attributes. Anything else is answered 404, or 415 for another encoding, so a
 * test sees it received nothing rather than something it misread.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number; arrayValue?: { values: AnyValue[] } };
type KeyValues = Array<{ key: string; value: AnyValue }>;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly traceState: string | undefined;
  readonly name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  readonly links: Array<{ traceId: string; spanId: string }>;
  readonly status: { code?: number; message?: string };
  readonly resource: Record<string, unknown>;
}

export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;

interface OtlpRequest {
  resourceSpans: Array<{
    resource?: { attributes?: KeyValues };
    scopeSpans: Array<{ spans: Array<{ traceId: string; spanId: string; parentSpanId?: string; traceState?: string; name: string; kind: number; attributes?: KeyValues; links?: Array<{ traceId: string; spanId: string }>; status?: { code?: number; message?: string } }> }>;
  }>;
}

function valueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return value.arrayValue.values.map(valueOf);
  return undefined;
}

const attributesOf = (list: KeyValues | undefined): Record<string, unknown> => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));

export class OtlpCollector {
  readonly spans: ReceivedSpan[] = [];
  readonly #server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") return res.writeHead(404).end();
      if (!String(req.headers["content-type"]).startsWith("application/json")) return res.writeHead(415).end();
      this.#take(JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpRequest);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });

  static async start(): Promise<OtlpCollector> {
    const collector = new OtlpCollector();
    await new Promise<void>((resolve) => collector.#server.listen(0, "127.0.0.1", resolve));
    return collector;
  }

  /** `http://127.0.0.1:PORT/v1/traces`, for `telemetry.otlp_endpoint`. */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1/traces`;
  }

  #take(body: OtlpRequest): void {
    for (const rs of body.resourceSpans) {
      const resource = attributesOf(rs.resource?.attributes);
      for (const s of rs.scopeSpans.flatMap((scope) => scope.spans)) {
        this.spans.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, traceState: s.traceState || undefined, name: s.name, kind: s.kind, attributes: attributesOf(s.attributes), links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })), status: s.status ?? {}, resource });
      }
    }
  }

  named(prefix: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.name.startsWith(prefix));
  }

  /** The one span named exactly `name`; a test fails naming what was received otherwise. */
  one(name: string): ReceivedSpan {
    const found = this.spans.filter((s) => s.name === name);
    if (found.length !== 1) throw new Error(`expected one span named ${JSON.stringify(name)}, got ${found.length} of: ${this.spans.map((s) => s.name).join(", ")}`);
    return found[0]!;
  }

  clear(): void {
    this.spans.length = 0;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
