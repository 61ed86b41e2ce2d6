/**
 * The next hop of a redirect, canonicalised like a first request (the proxy then decides and
 * vets it like one). Method and body per RFC 9110 §15.4: 303 turns anything but HEAD into a
 * GET; 301 and 302 turn POST into GET, as every user agent does; 307 and 308 keep both. When
 * the body is dropped, so are the headers describing it (Fetch standard, "request-body-header
 * name"). When the origin changes, the plugin's own credentials (Authorization, Cookie) stay
 * behind (Fetch standard; CVE-2022-0235).
 */
import type { HttpCredential } from "./resource.js";
import type { IncomingMessage } from "node:http";
import { HostProxyError } from "../types.js";
import { canonicalizeHttpRequest } from "./canonicalize.js";
import { ORIGIN_BOUND_HEADERS } from "./headers.js";
import type { CanonicalHttpRequest, CanonicalizedHttpRequest } from "./types.js";

export const REDIRECT_STATUSES: readonly number[] = [301, 302, 303, 307, 308];
const BODY_HEADERS: readonly string[] = ["content-type", "content-encoding", "content-language", "content-location"];

/** The Location of a redirect response, or `undefined` when it is not one. */
export function redirectLocation(response: IncomingMessage): string | undefined {
  if (!REDIRECT_STATUSES.includes(response.statusCode ?? 0)) return undefined;
  const location = response.headers.location;
  return typeof location === "string" && location !== "" ? location : undefined;
}

/** `scheme://host:port` (RFC 6454). */
export function originOf(request: { scheme: string; host: string; port: number }): string {
  return `${request.scheme}://${request.host}:${request.port}`;
}

export interface NextHopOptions {
  status: number;
  location: string;
  credentials: readonly HttpCredential[];
}

export function nextHop(current: CanonicalHttpRequest, options: NextHopOptions): CanonicalizedHttpRequest {
  let url: string;
  try {
    url = new URL(options.location, current.url).href;
  } catch {
    throw HostProxyError.io(`${current.url}: redirect to an invalid Location ${JSON.stringify(options.location.slice(0, 200))}`);
  }
  const toGet = (options.status === 303 && current.method !== "HEAD") || ((options.status === 301 || options.status === 302) && current.method === "POST");
  const sameOrigin = sameOriginAs(current, url);
  const newHost = sameOrigin ? current.host : safeHost(url);
  const credentialHeaders = options.credentials.filter((c) => c.host === newHost).map((c) => c.header.toLowerCase());
  const headers = current.headers.filter(
    (h) => !(toGet && BODY_HEADERS.includes(h.name)) && (sameOrigin || (!ORIGIN_BOUND_HEADERS.includes(h.name) && !credentialHeaders.includes(h.name))),
  );
  const raw = {
    method: toGet ? "GET" : current.method,
    url,
    headers,
    body: toGet ? undefined : current.body,
    timeoutMs: current.timeoutMs,
    maxBytes: current.maxBytes,
    followRedirects: current.followRedirects,
  };
  return canonicalizeHttpRequest(raw, { credentials: options.credentials });
}

function sameOriginAs(current: CanonicalHttpRequest, url: string): boolean {
  try {
    return new URL(url).origin === new URL(current.url).origin;
  } catch {
    return false;
  }
}

function safeHost(url: string): string {
  try {
    const host = new URL(url).hostname;
    return host.endsWith(".") ? host.slice(0, -1) : host;
  } catch {
    return "";
  }
}
