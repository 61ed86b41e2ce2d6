/**
 * The `fetch` the SDK's streamable HTTP client transport is given: every request goes through
 * the http proxy under the agent's `http.fetch` grant (allow-list, vetted addresses against
 * SSRF, host-attached credentials, body caps, no redirects followed) — never Node's own fetch.
 * The standalone GET event stream is answered 405 here (the transport then goes without it):
 * a stream that never ends would hold a buffered proxy request open until its deadline, and
 * server-initiated messages outside a call are nothing a ToolCall waits for.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createHttpProxy, type HttpProxyOptions } from "../../host-proxies/http/index.js";
import type { HttpResource } from "../policy/catalogue/index.js";

export interface ProxiedFetchOptions extends Pick<HttpProxyOptions, "resolveSecret" | "resolver" | "ca"> {
  /** Largest response body, in bytes; default 4 MiB. */
  maxResponseBytes?: number;
  /** One request's deadline; default 60 s. */
  timeoutMs?: number;
}

export function proxiedFetch(grant: HttpResource, options: ProxiedFetchOptions = {}): FetchLike {
  const { maxResponseBytes = 4 << 20, timeoutMs = 60_000, ...proxyOptions } = options;
  const proxy = createHttpProxy(grant, { ...proxyOptions, maxResponseBytes, defaultTimeoutMs: timeoutMs, maxTimeoutMs: timeoutMs });
  return async (url, init = {}) => {
    const method = (init.method ?? "GET").toUpperCase();
    if (method === "GET") return new Response(null, { status: 405, statusText: "no standalone stream through the proxy" });
    const headers = [...new Headers(init.headers).entries()].map(([name, value]) => ({ name, value }));
    const body = init.body === undefined || init.body === null ? undefined : new Uint8Array(await new Response(init.body as BodyInit).arrayBuffer());
    const { canonical } = proxy.canonicalize({ method, url: String(url), headers, body, timeoutMs, maxBytes: maxResponseBytes, followRedirects: false });
    const response = await proxy.fetch(canonical, init.signal ? { signal: init.signal } : {});
    if (response.truncated) throw new Error(`the server's response was over ${maxResponseBytes} bytes`);
    const out = new Headers();
    for (const h of response.headers) out.append(h.name, h.value);
    const nullBody = [204, 205, 304].includes(response.status);
    return new Response(nullBody ? null : (response.body as unknown as BodyInit), { status: response.status, headers: out });
  };
}
