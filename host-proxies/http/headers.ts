/**
 * Request header fields a plugin may send. Names are RFC 9110 §5.1 tokens, lowercased; values
 * are RFC 9110 §5.5 field values with no CR, LF or NUL (header injection / response splitting,
 * CWE-113; e.g. CVE-2019-9740 in Python's urllib), outer whitespace trimmed.
 *
 * Some names the host owns and a plugin may not set:
 * - `host`: the host sets it from the canonical URL. A plugin-chosen Host would be decided
 *   against one name and routed by the server to another (virtual-host confusion).
 * - framing and hop-by-hop fields (`content-length`, `transfer-encoding`, `connection`, `te`,
 *   `trailer`, `upgrade`, `keep-alive`, `expect`, `http2-settings`): the host frames the body;
 *   a plugin-chosen length or encoding is request smuggling (RFC 9112 §6.3, §11.2).
 * - `proxy-*`: there is no proxy; a Proxy-Authorization would leak to whatever receives it
 *   (CVE-2024-24758, undici).
 * - routing hints honoured by reverse proxies and frameworks (`forwarded`, `x-forwarded-*`,
 *   `x-real-ip`, `x-original-url`, `x-rewrite-url`): they let a request claim another
 *   client, host or path than the one the policy decided on.
 * - method overrides (`x-http-method-override`, `x-http-method`, `x-method-override`): many
 *   frameworks execute the overriding method, so a grant of GET would become DELETE.
 * - `accept-encoding`: the host decodes gzip, deflate and br and caps the decoded size; it
 *   advertises exactly those.
 * - any header a grant credential sets for the request's host: the host's value must win
 *   and a plugin must not be able to learn whether it did.
 *
 * `cookie` and `authorization` are the plugin's own to send (its data, not a host secret);
 * they are dropped on a redirect to another origin (Fetch standard, "HTTP-redirect fetch";
 * CVE-2022-0235 in node-fetch).
 */
import { HostProxyError } from "../types.js";
import { HTTP_DENIAL_REASONS, httpDenied } from "./reasons.js";
import type { HttpHeader } from "./types.js";

export const MAX_REQUEST_HEADERS = 64;
export const MAX_HEADER_NAME_BYTES = 256;
export const MAX_HEADER_VALUE_BYTES = 8192;
export const MAX_REQUEST_HEADER_BYTES = 32 * 1024;

const HOST_OWNED = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "te",
  "trailer",
  "upgrade",
  "expect",
  "http2-settings",
  "forwarded",
  "x-real-ip",
  "x-original-url",
  "x-rewrite-url",
  "x-http-method-override",
  "x-http-method",
  "x-method-override",
  "accept-encoding",
]);
const HOST_OWNED_PREFIXES = ["proxy-", "x-forwarded-"];

/** Headers that carry the plugin's own credentials: dropped when a redirect changes origin. */
export const ORIGIN_BOUND_HEADERS: readonly string[] = ["authorization", "cookie", "cookie2"];

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
// HTAB, visible ASCII and obs-text (RFC 9110 §5.5). Node refuses code points above U+00FF.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export interface HeaderOptions {
  /** Names a grant credential sets for this request's host: refused from the plugin. */
  credentialHeaders?: readonly string[];
}

/** Validates and lowercases `headers`; throws `invalid-input` or `header-not-allowed`. */
export function canonicalHeaders(headers: readonly HttpHeader[], options: HeaderOptions = {}): HttpHeader[] {
  if (headers.length > MAX_REQUEST_HEADERS) throw HostProxyError.invalidInput(`headers: at most ${MAX_REQUEST_HEADERS} request headers`);
  const out: HttpHeader[] = [];
  let total = 0;
  for (const [i, header] of headers.entries()) {
    const name = checkName(header.name, i);
    const value = checkValue(name, header.value);
    if (isHostOwned(name, options)) {
      throw httpDenied(HTTP_DENIAL_REASONS.headerNotAllowed, `headers[${i}]: ${name} is set by the host, not the plugin`);
    }
    total += name.length + value.length + 4;
    out.push({ name, value });
  }
  if (total > MAX_REQUEST_HEADER_BYTES) throw HostProxyError.invalidInput(`headers: larger than ${MAX_REQUEST_HEADER_BYTES} bytes in all`);
  return out;
}

function checkName(name: string, index: number): string {
  const lower = name.toLowerCase();
  if (lower.length === 0 || lower.length > MAX_HEADER_NAME_BYTES || !TOKEN.test(lower)) {
    throw HostProxyError.invalidInput(`headers[${index}].name: ${JSON.stringify(name.slice(0, 64))} is not a header name (RFC 9110 token)`);
  }
  return lower;
}

function checkValue(name: string, value: string): string {
  // Checked before trimming: a trailing CR LF must be refused, not quietly trimmed away.
  if (!FIELD_VALUE.test(value)) {
    throw HostProxyError.invalidInput(`header ${name}: value holds CR, LF, NUL, another control character or a character above U+00FF`);
  }
  if (value.length > MAX_HEADER_VALUE_BYTES) throw HostProxyError.invalidInput(`header ${name}: value longer than ${MAX_HEADER_VALUE_BYTES} bytes`);
  return value.replace(/^[\t ]+|[\t ]+$/g, "");
}

export function isHostOwned(name: string, options: HeaderOptions = {}): boolean {
  return HOST_OWNED.has(name) || HOST_OWNED_PREFIXES.some((p) => name.startsWith(p)) || (options.credentialHeaders ?? []).includes(name);
}
