import type { MiddlewareHandler } from "hono";

/**
 * The console's Content-Security-Policy: scripts and styles from this origin only (one external
 * file each, no inline script or style at all, so no nonce or hash is needed), no plugin
 * objects, no `<base>` rewrite, forms posting back here only, and no framing (clickjacking: an
 * approve button inside someone else's page).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers every console answer carries: CSP, no framing (both spellings), nosniff, no referrer to other sites, no cache. */
export function consoleHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const h = c.res.headers;
    h.set("Content-Security-Policy", CONSOLE_CSP);
    h.set("X-Frame-Options", "DENY");
    h.set("X-Content-Type-Options", "nosniff");
    // Not `no-referrer`: under it a browser sends `Origin: null` on a form post (Fetch standard,
    // "serializing a request origin"), and the Origin check would refuse our own forms.
    h.set("Referrer-Policy", "same-origin");
    if (!h.has("Cache-Control")) h.set("Cache-Control", "no-store");
  };
}

/**
 * True when a state-changing request came from one of this server's own pages: its `Origin` is
 * this request's own origin. A browser sends `Origin` on every POST (Fetch standard); a missing
 * one, `null` (a sandboxed frame, a redirect chain) or another site's is refused.
 */
export function sameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin === null || origin === "null") return false;
  const url = new URL(request.url);
  const host = request.headers.get("host") ?? url.host;
  return origin === `${url.protocol}//${host}`;
}
