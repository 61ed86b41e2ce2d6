import type { MiddlewareHandler } from "hono";
import { ApiError } from "./api-error.js";

/**
 * What a request path may not contain, read from the request target exactly as the client sent
 * it: a dot segment (`.` or `..`, also percent-encoded: WHATWG URL parsing — which the Node
 * adapter applies — resolves `%2e%2e` like `..`), an encoded `/` or `\` (`%2f`, `%5c`: the
 * router keeps them inside one parameter, which a handler might later join into a path), an
 * empty segment (`//`), a backslash, or an encoded or raw control character. No clawhive route
 * needs any of them, and refusing them outright means no handler ever sees a path that was
 * resolved into a different one (CWE-22; CVE-2021-41773 was `.%2e/`).
 */
const AMBIGUOUS = [
  /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i,
  /%(?:2f|5c)/i,
  /\/\//,
  /\\/,
  /%(?:[01][0-9a-f]|7f)/i,
  /[\u0000-\u001f\u007f]/,
];

/** 400 `invalid_path` for a request target `AMBIGUOUS` matches, before routing or auth. */
export function rejectAmbiguousPaths(): MiddlewareHandler {
  return async (c, next) => {
    const path = rawPathOf(c.env, c.req.url);
    const bad = AMBIGUOUS.find((pattern) => pattern.test(path));
    if (bad !== undefined) {
      throw new ApiError("invalid_path", "request path: dot segments, empty segments, encoded slashes and control characters are not allowed", {
        status: 400,
        field: "path",
      });
    }
    await next();
  };
}

/**
 * The path as the client sent it. Under `@hono/node-server`, `c.env.incoming` is Node's request,
 * whose `url` is the raw request target — before `new URL()` resolved its dot segments. Other
 * adapters (and `app.request` in tests) give only the parsed URL, which is checked instead.
 */
function rawPathOf(env: unknown, url: string): string {
  const incoming = typeof env === "object" && env !== null ? (env as { incoming?: { url?: unknown } }).incoming : undefined;
  const sent = typeof incoming?.url === "string" ? incoming.url : url;
  // The absolute form (`GET http://host/path`, RFC 9112 §3.2.2) is checked from its path on.
  const target = /^https?:\/\//i.test(sent) ? pathOfUrl(sent) : sent;
  const query = target.indexOf("?");
  return query === -1 ? target : target.slice(0, query);
}

function pathOfUrl(url: string): string {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  return start === -1 ? "/" : url.slice(start);
}
