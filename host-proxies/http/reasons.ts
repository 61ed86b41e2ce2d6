/**
 * The stable reason codes of http denials. Operators, the policy engine and tests match on
 * these strings, so they never change meaning. The grant matcher's own codes
 * (`scheme-not-allowed`, `host-not-allowed`, `port-not-allowed`, `method-not-allowed`) live in
 * runtime/policy/catalogue/http.ts; the canonicaliser reuses the first and the last.
 */
import { HostProxyError } from "../types.js";

export const HTTP_CAPABILITY = "http.fetch";

export const HTTP_DENIAL_REASONS = {
  /** Not `http:` or `https:` (file:, ftp:, data:, gopher: … are never fetched). */
  schemeNotAllowed: "scheme-not-allowed",
  /** A method outside the catalogue's set (CONNECT, TRACE, custom verbs). */
  methodNotAllowed: "method-not-allowed",
  /** `user:pass@` in the URL: credentials belong to the grant, and `a@b` confuses readers. */
  userinfo: "userinfo-not-allowed",
  /** A header the host owns (Host, framing, hop-by-hop, proxy, routing, credential headers). */
  headerNotAllowed: "header-not-allowed",
  /** A resolved or literal address that is not public and not in `allow_addresses`. */
  addressNotAllowed: "address-not-allowed",
  /** A credential would travel in clear text to a non-loopback address. */
  credentialOverPlainHttp: "credential-over-plain-http",
  /** More redirects than the proxy follows. */
  tooManyRedirects: "too-many-redirects",
} as const;

export type HttpDenialReason = (typeof HTTP_DENIAL_REASONS)[keyof typeof HTTP_DENIAL_REASONS];

export function httpDenied(reason: HttpDenialReason, message: string): HostProxyError {
  return HostProxyError.denied(HTTP_CAPABILITY, reason, message);
}
