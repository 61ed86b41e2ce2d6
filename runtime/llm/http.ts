/**
 * The fetch the SDKs use. Both SDKs (openai 6, @anthropic-ai/sdk 1) talk through `fetch` only, so
 * an outbound proxy is undici's ProxyAgent as the dispatcher of undici's own `fetch` — the same
 * package on both sides, since the fetch built into Node 20 bundles its own undici and mixing
 * a dispatcher from another copy is not supported. ProxyAgent tunnels with CONNECT (http and
 * https targets alike) and sends `Proxy-Authorization: Basic` from the URL's user:password.
 */
import type * as Undici from "undici";
import { LlmError } from "./errors.js";

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A fetch that goes through `proxyUrl` (http or https), or the global fetch when there is none. */
export function proxiedFetch(proxyUrl: string | undefined): Fetch {
  if (proxyUrl === undefined || proxyUrl === "") return globalThis.fetch;
  let url: URL;
  try {
    url = new URL(proxyUrl);
  } catch (cause) {
    throw new LlmError("llm_config", `proxy_url: expected a URL like http://proxy.internal:3128, got ${redactUrl(proxyUrl)}`, { cause });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new LlmError("llm_config", `proxy_url: expected an http or https proxy, got ${url.protocol}`);
  }
  // undici (~0.25 s to load) is imported with the first proxied request, not with every runtime.
  let proxied: Promise<{ fetch: typeof Undici.fetch; dispatcher: Undici.ProxyAgent }> | undefined;
  return (async (input: string | URL | Request, init?: RequestInit) => {
    proxied ??= import("undici").then((undici) => ({ fetch: undici.fetch, dispatcher: new undici.ProxyAgent({ uri: url.href }) }));
    const { fetch, dispatcher } = await proxied;
    // undici's RequestInit and Response are its own declarations of the same WHATWG types.
    return fetch(input as Parameters<typeof fetch>[0], { ...(init as Parameters<typeof fetch>[1]), dispatcher }) as unknown as Promise<Response>;
  }) as Fetch;
}

/** A URL for messages, without its password. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = "***";
    return url.href;
  } catch {
    return "(not a URL)";
  }
}
