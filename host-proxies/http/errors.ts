/**
 * Node's network errors in guest terms. Messages name the URL and the error code, never a
 * header value (a credential could be one); the Node error stays as `cause` for the operator.
 */
import { HostProxyError } from "../types.js";

const WORDS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the server",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  EPIPE: "the server closed the connection",
  HPE_HEADER_OVERFLOW: "the response headers are too large",
  Z_DATA_ERROR: "the response body does not decode as its content-encoding says",
  Z_BUF_ERROR: "the response body ended inside its content-encoding",
  ERR_BROTLI_DECOMPRESSION_FAILED: "the response body does not decode as br",
};

export interface ErrorContext {
  url: string;
  /** Set when the fetch's own deadline fired. */
  timedOutAfterMs?: number;
}

export function toHostProxyError(err: unknown, context: ErrorContext): HostProxyError {
  if (err instanceof HostProxyError) return err;
  if (context.timedOutAfterMs !== undefined) {
    return HostProxyError.io(`${context.url}: timed out after ${context.timedOutAfterMs} ms`, err);
  }
  const code = errorCode(err);
  if (code === "ABORT_ERR") return HostProxyError.io(`${context.url}: the request was cancelled`, err);
  if (code !== undefined && /^(?:ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_)/.test(code)) {
    return HostProxyError.io(`${context.url}: TLS failed (${code})`, err);
  }
  const words = code === undefined ? undefined : Object.hasOwn(WORDS, code) ? WORDS[code] : (code.startsWith("HPE_") ? "the response is not valid HTTP" : undefined);
  return HostProxyError.io(`${context.url}: ${words ?? "request failed"}${code === undefined ? "" : ` (${code})`}`, err);
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") return code;
  const name = (err as { name?: unknown }).name;
  return name === "AbortError" ? "ABORT_ERR" : undefined;
}
