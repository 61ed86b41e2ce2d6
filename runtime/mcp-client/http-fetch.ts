/**
 * The `fetch` the SDK's streamable HTTP client transport is given: every request goes through
 * the http proxy under the agent's `http.fetch` grant (allow-list, vetted addresses against
 * SSRF, host-attached credentials, body caps, no redirects followed) — never Node's own fetch.
 *
 * The response body is streamed as it arrives (HttpProxy.open: decoded, capped, credentials
 * redacted), not buffered: a server answers a `tools/call` with an event stream on which it may
 * first ask the client something (elicitation, sampling, roots/list, ping) and wait for the
 * answer, or send progress. Buffered until the stream ended, such a request would never be seen
 * and the call would wait on itself until its deadline. A body that breaks (past its cap, cut by
 * the server) is reported to `onBodyError`, so the connection fails at once rather than leaving
 * the call waiting for a response that cannot come.
 *
 * The standalone GET event stream is answered 405 here (the transport then goes without it):
 * server-initiated messages outside a call are nothing a ToolCall waits for, and a stream that
 * never ends would hold a proxied connection open for nothing.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createHttpProxy, type HttpProxyOptions } from "../../host-proxies/http/index.js";
import type { HttpResource } from "../policy/catalogue/index.js";

export interface ProxiedFetchOptions extends Pick<HttpProxyOptions, "resolveSecret" | "resolver" | "ca"> {
  /** Largest response body (one call's whole event stream), in bytes; default 4 MiB. */
  maxResponseBytes?: number;
  /** One request's deadline, its streamed body included; default 60 s. */
  timeoutMs?: number;
  /** Told when a response body breaks mid-stream (over its cap, the connection cut, the deadline). */
  onBodyError?: (error: Error) => void;
}

export function proxiedFetch(grant: HttpResource, options: ProxiedFetchOptions = {}): FetchLike {
  const { maxResponseBytes = 4 << 20, timeoutMs = 60_000, onBodyError, ...proxyOptions } = options;
  const proxy = createHttpProxy(grant, { ...proxyOptions, maxResponseBytes, defaultTimeoutMs: timeoutMs, maxTimeoutMs: timeoutMs });
  return async (url, init = {}) => {
    const method = (init.method ?? "GET").toUpperCase();
    if (method === "GET") return new Response(null, { status: 405, statusText: "no standalone stream through the proxy" });
    const headers = [...new Headers(init.headers).entries()].map(([name, value]) => ({ name, value }));
    const body = init.body === undefined || init.body === null ? undefined : new Uint8Array(await new Response(init.body as BodyInit).arrayBuffer());
    const { canonical } = proxy.canonicalize({ method, url: String(url), headers, body, timeoutMs, maxBytes: maxResponseBytes, followRedirects: false });
    const response = await proxy.open(canonical, init.signal ? { signal: init.signal } : {});
    const out = new Headers();
    for (const h of response.headers) out.append(h.name, h.value);
    const nullBody = [204, 205, 304].includes(response.status);
    if (nullBody) await response.body.cancel().catch(() => undefined);
    return new Response(nullBody ? null : watched(response.body, onBodyError), { status: response.status, headers: out });
  };
}

/** `body` as it is, with its failure reported (once) besides being the reader's error. */
function watched(body: ReadableStream<Uint8Array>, onBodyError: ((error: Error) => void) | undefined): ReadableStream<Uint8Array> {
  if (onBodyError === undefined) return body;
  const reader = body.getReader();
  // Cancelled by its reader (done with it): nothing that follows is a failure.
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (cancelled) return;
        const failure = error instanceof Error ? error : new Error(String(error));
        onBodyError(failure);
        controller.error(failure);
        return;
      }
      if (cancelled) return;
      if (chunk.done) controller.close();
      else controller.enqueue(chunk.value);
    },
    cancel: (reason) => {
      cancelled = true;
      return reader.cancel(reason);
    },
  });
}
