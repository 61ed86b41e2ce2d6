import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";

export interface CorsOptions {
  /** Exact origins allowed, e.g. `https://console.example.com`. `*` is refused: tokens are bearer secrets. */
  readonly origins: readonly string[];
}

/** An exact origin as browsers send it (RFC 6454 §6.2): scheme, host, optional port; no path, no `*`. */
function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    // A `*` is a valid host code point to WHATWG URL, so `https://*.example.com` parses: refuse it.
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === text && !text.includes("*");
  } catch {
    return false;
  }
}

/**
 * CORS for an allow-list of origins; the app installs it only for a non-empty list, so by default no
 * response carries an `Access-Control-*` header and browsers keep other sites' scripts away from
 * the API. No credentials mode: the API authenticates with `Authorization`, never cookies.
 */
export function corsFor(options: CorsOptions): MiddlewareHandler {
  for (const origin of options.origins) {
    if (!isOrigin(origin)) throw new RangeError(`cors origin ${JSON.stringify(origin)}: expected scheme://host[:port], no path, no wildcard`);
  }
  const allowed = [...options.origins];
  return cors({
    origin: (origin) => (allowed.includes(origin) ? origin : null),
    allowMethods: ["GET", "POST", "PUT", "DELETE"],
    allowHeaders: ["Authorization", "Content-Type", "Last-Event-ID"],
    maxAge: 600,
  });
}
