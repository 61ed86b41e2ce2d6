import { idempotency, type IdempotencyRecords } from "../middleware/idempotency.js";
import type { Hono, MiddlewareHandler } from "hono";
import { principalOf, requireRole, roleAllows } from "../auth/index.js";
import type { ApiEnv, Role } from "../auth/index.js";
import { ApiError } from "../middleware/api-error.js";
import type { ApiRoute } from "./route.js";

/**
 * Mounts each route on `app`: its role check (403) first, then its own validation and handler.
 * Refuses at start a route declared twice or whose path parameters and params schema disagree,
 * so a mistake in a declaration fails the start rather than one request.
 */
export function mountRoutes(app: Hono<ApiEnv>, routes: readonly ApiRoute[], options: { idempotency?: IdempotencyRecords } = {}): void {
  const seen = new Set<string>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) throw new RangeError(`route ${key}: declared twice`);
    seen.add(key);
    checkParams(route);
    if (route.idempotent && options.idempotency !== undefined) app.on(route.method, route.path, idempotency(options.idempotency));
    if (route.roles === "public") app.on(route.method, route.path, (c) => route.handle(c));
    else app.on(route.method, route.path, requireRole(...route.roles), (c) => route.handle(c));
  }
}

/**
 * The body limit of the routes that declare their own, for `limitBody({ limitFor })`: matched
 * on method and router path before the body is read.
 */
export function routeBodyLimits(routes: readonly ApiRoute[]): (method: string, path: string) => number | undefined {
  const limited = routes
    .filter((route) => route.bodyLimitBytes !== undefined)
    .map((route) => ({ method: route.method, pattern: pathPattern(route.path), limit: route.bodyLimitBytes! }));
  if (limited.length === 0) return () => undefined;
  return (method, path) => limited.find((r) => r.method === method && r.pattern.test(path))?.limit;
}

/**
 * The role check of every declared route, as one middleware the app runs before the body limit:
 * a request's body is read (a chunked one is buffered up to its route's limit, 64 MiB for an
 * upload) only once its token may call the route. A path no declared route matches passes on
 * (404, or a sub-app with its own checks). The routes check their roles again when they run.
 */
export function gateRoles(routes: readonly ApiRoute[]): MiddlewareHandler<ApiEnv> {
  const gated = routes
    .filter((route) => route.roles !== "public")
    .map((route) => ({ method: route.method, pattern: pathPattern(route.path), roles: route.roles as readonly Role[] }));
  return async (c, next) => {
    const matching = gated.filter((r) => r.method === c.req.method && r.pattern.test(c.req.path));
    if (matching.length > 0) {
      const principal = principalOf(c);
      const refused = matching.find((r) => !roleAllows(principal.role, r.roles));
      if (refused !== undefined) {
        throw new ApiError("forbidden", `this route needs a token with the role ${refused.roles.join(" or ")}; token ${principal.tokenId} has the role ${principal.role}`, { status: 403 });
      }
    }
    await next();
  };
}

/** `/v1/plugins/:name/upgrade` → `^/v1/plugins/[^/]+/upgrade$`. */
function pathPattern(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}$`);
}

/** The names after `:` in a Hono path. */
export function pathParamNames(path: string): string[] {
  return path.split("/").filter((s) => s.startsWith(":")).map((s) => s.slice(1));
}

function checkParams(route: ApiRoute): void {
  const inPath = pathParamNames(route.path).sort();
  const inSchema = Object.keys(route.params?.entries ?? {}).sort();
  if (inPath.join(",") !== inSchema.join(",")) {
    throw new RangeError(`route ${route.method} ${route.path}: path parameters [${inPath.join(", ")}] but params schema [${inSchema.join(", ")}]`);
  }
}
