import type { MiddlewareHandler } from "hono";

/**
 * Headers every API response carries unless its route set its own: `nosniff`, so a browser
 * never renders a JSON error holding model-written text as HTML, and `no-store`, so no cache
 * keeps a response holding a token, a secret's name or a run's output.
 */
export function baselineHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (!c.res.headers.has("X-Content-Type-Options")) c.res.headers.set("X-Content-Type-Options", "nosniff");
    if (!c.res.headers.has("Cache-Control")) c.res.headers.set("Cache-Control", "no-store");
  };
}
