import type { MiddlewareHandler } from "hono";
import { ApiError } from "./api-error.js";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The Origin check the MCP spec requires of a local streamable-HTTP server (2025-11-25,
 * "Transports", security warning: validate Origin to prevent DNS rebinding). A request with no
 * Origin comes from a non-browser client and passes; a browser's must come from this machine
 * (a loopback origin) or from an origin the operator allowed (`server.cors.origins`). A
 * rebinding page's origin is its own domain, so it is refused here even before its token is.
 */
export function checkMcpOrigin(allowed: readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (origin !== undefined && !allowed.includes(origin) && !isLoopbackOrigin(origin)) {
      throw new ApiError("origin_refused", `Origin ${JSON.stringify(origin.slice(0, 200))}: the MCP endpoint answers only this machine's pages and the origins in server.cors.origins`, { status: 403, field: "origin" });
    }
    await next();
  };
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === origin && LOOPBACK_HOSTS.has(url.hostname);
  } catch {
    return false;
  }
}
