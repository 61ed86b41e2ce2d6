/**
 * Raw guest request → canonical request. Pure: no DNS, no sockets. The policy decides on the
 * `HttpRequest` returned here and the proxy acts on the `CanonicalHttpRequest` beside it, both
 * from one parse (STYLE habit 6).
 *
 * URL rules, and why:
 * - WHATWG URL parsing, the parser browsers and Node share: it reads `http://0x7f.1/`,
 *   `http://2130706433/` and `http://0177.0.0.1/` as 127.0.0.1, lowercases names and turns
 *   Unicode into IDNA A-labels, so the policy and the connect see one spelling ("A New Era of
 *   SSRF", Orange Tsai, Black Hat 2017: parser differentials).
 * - Only `http:` and `https:`.
 * - No userinfo: `http://allowed.example@127.0.0.1/` goes to 127.0.0.1, and a reader (person
 *   or model) sees `allowed.example`; credentials come from the grant, never the URL.
 * - The fragment is dropped: it never leaves a client (RFC 9110 §4.2.5).
 * - A trailing dot is dropped (`example.com.` is `example.com`): TLS names have none (RFC 6066
 *   §3) and host patterns are written without it.
 * - The default port is filled in for the policy; port 0 is refused.
 * - Names are DNS names of letter, digit and hyphen labels: anything else could not match a
 *   host pattern and only makes resolvers disagree.
 */
import { HTTP_METHODS } from "./resource.js";
import type { HttpCredential, HttpMethod } from "./resource.js";
import { HostProxyError } from "../types.js";
import { canonicalHeaders } from "./headers.js";
import { parseIp } from "./ip.js";
import { HTTP_DENIAL_REASONS, httpDenied } from "./reasons.js";
import type { CanonicalHttpRequest, CanonicalizedHttpRequest, RawHttpRequest } from "./types.js";

export const MAX_URL_LENGTH = 8192;
const DEFAULT_PORTS = { "http:": 80, "https:": 443 } as const;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
// Methods with no defined request body semantics (RFC 9110 §9.3.1, §9.3.2): a body there is
// ignored by some servers and parsed by others, a smuggling primitive.
const NO_BODY: readonly string[] = ["GET", "HEAD"];

export interface CanonicalizeHttpOptions {
  /** The grant's credentials: headers they set for the request's host are refused. */
  credentials?: readonly HttpCredential[];
}

/** Throws `HostProxyError` (`invalid-input` or `denied`) on a request that cannot be sent. */
export function canonicalizeHttpRequest(raw: RawHttpRequest, options: CanonicalizeHttpOptions = {}): CanonicalizedHttpRequest {
  const method = canonicalMethod(raw.method);
  const url = canonicalUrl(raw.url);
  const credentialHeaders = (options.credentials ?? []).filter((c) => c.host === url.host).map((c) => c.header.toLowerCase());
  const headers = canonicalHeaders(raw.headers, { credentialHeaders });
  if (raw.body !== undefined && NO_BODY.includes(method)) throw HostProxyError.invalidInput(`${method} ${url.href}: a ${method} request has no body`);
  const canonical: CanonicalHttpRequest = {
    method,
    url: url.href,
    scheme: url.scheme,
    host: url.host,
    port: url.port,
    target: url.target,
    headers: Object.freeze(headers),
    body: raw.body,
    timeoutMs: timeout(raw.timeoutMs),
    maxBytes: maxBytes(raw.maxBytes),
    followRedirects: raw.followRedirects ?? true,
  };
  return { canonical, request: { scheme: url.scheme, host: url.host, port: url.port, method } };
}

function canonicalMethod(method: string): HttpMethod {
  const upper = /^[A-Za-z]{1,16}$/.test(method) ? method.toUpperCase() : "";
  if (!(HTTP_METHODS as readonly string[]).includes(upper)) {
    throw httpDenied(HTTP_DENIAL_REASONS.methodNotAllowed, `method ${JSON.stringify(method.slice(0, 32))}: expected one of ${HTTP_METHODS.join(", ")}`);
  }
  return upper as HttpMethod;
}

interface CanonicalUrl {
  href: string;
  scheme: "http" | "https";
  host: string;
  port: number;
  target: string;
}

/** `url` parsed once; everything the request needs is read from this parse. */
export function canonicalUrl(raw: string): CanonicalUrl {
  if (raw.length > MAX_URL_LENGTH) throw HostProxyError.invalidInput(`url: longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw HostProxyError.invalidInput(`url ${JSON.stringify(raw.slice(0, 200))}: not an absolute URL`);
  }
  const show = JSON.stringify(raw.slice(0, 200));
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw httpDenied(HTTP_DENIAL_REASONS.schemeNotAllowed, `url ${show}: only http and https URLs are fetched, not ${url.protocol}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw httpDenied(HTTP_DENIAL_REASONS.userinfo, `url ${show}: user:password@ in a URL is refused; the request would go to ${url.hostname}`);
  }
  url.hash = "";
  const host = canonicalHost(url.hostname, show);
  if (host.name !== url.hostname) url.hostname = host.name;
  const port = url.port === "" ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  if (port === 0) throw HostProxyError.invalidInput(`url ${show}: port 0 is not a port`);
  return { href: url.href, scheme: url.protocol === "https:" ? "https" : "http", host: host.policy, port, target: `${url.pathname}${url.search}` };
}

/** `name`: as written in the URL; `policy`: as the policy and the resolver see it. */
function canonicalHost(hostname: string, show: string): { name: string; policy: string } {
  if (hostname.startsWith("[")) {
    const ip = parseIp(hostname);
    if (ip === undefined) throw HostProxyError.invalidInput(`url ${show}: bad IPv6 address`);
    return { name: hostname, policy: ip.canonical };
  }
  if (parseIp(hostname) !== undefined) return { name: hostname, policy: hostname };
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  if (name.length === 0 || name.length > 253 || !name.split(".").every((l) => LABEL.test(l))) {
    throw HostProxyError.invalidInput(`url ${show}: host ${JSON.stringify(hostname)} is not a DNS name (letters, digits, '-' labels)`);
  }
  return { name, policy: name };
}

function timeout(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 1) throw HostProxyError.invalidInput("timeoutMs: expected a positive whole number of milliseconds");
  return value;
}

function maxBytes(value: bigint | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === "bigint" ? value : Number.isSafeInteger(value) ? BigInt(value) : -1n;
  if (n < 0n) throw HostProxyError.invalidInput("maxBytes: expected a non-negative whole number of bytes");
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}
