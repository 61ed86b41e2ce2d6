/**
 * W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header):
 * `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`. Anything else — another length,
 * upper case, an all-zero id, version ff, extra fields on version 00 — is ignored, as the
 * specification asks: the request then starts a trace of its own.
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

export interface TraceParent {
  readonly traceId: string;
  readonly spanId: string;
  /** Bit 0: the caller sampled it. */
  readonly flags: number;
}

export function parseTraceparent(header: string | null | undefined): TraceParent | undefined {
  if (header === null || header === undefined || header.length > 512) return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, flags: Number.parseInt(flags, 16) };
}

export function formatTraceparent(parent: TraceParent): string {
  return `00-${parent.traceId}-${parent.spanId}-${parent.flags.toString(16).padStart(2, "0")}`;
}
