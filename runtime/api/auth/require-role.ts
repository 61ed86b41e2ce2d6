import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "../middleware/api-error.js";
import { REALM } from "./authenticate.js";
import { isRole, roleAllows } from "./principal.js";
import type { ApiEnv, Principal, Role } from "./principal.js";

/**
 * Lets a request through only if `authenticate` found a token whose role is one of `roles`
 * (an admin token passes every route): 403 `forbidden` otherwise. A route reached without
 * `authenticate` having run answers 401, never runs unchecked.
 *
 * @example app.post("/v1/runs", requireRole("client"), handler) // clients and admins
 */
export function requireRole(...roles: Role[]): MiddlewareHandler<ApiEnv> {
  if (roles.length === 0 || !roles.every(isRole)) throw new RangeError(`requireRole: expected one or more of admin, approver, client; got ${JSON.stringify(roles)}`);
  const needed = roles.join(" or ");
  return async (c, next) => {
    const principal = principalOf(c);
    if (!roleAllows(principal.role, roles)) {
      throw new ApiError("forbidden", `this route needs a token with the role ${needed}; token ${principal.tokenId} has the role ${principal.role}`, { status: 403 });
    }
    await next();
  };
}

/** Who is calling, in a route behind `authenticate`; 401 if no token was checked (never undefined). */
export function principalOf(c: Context<ApiEnv>): Principal {
  const principal = c.get("principal");
  if (principal === undefined) {
    throw new ApiError("unauthorized", "this route needs a bearer token", { status: 401, headers: { "WWW-Authenticate": `Bearer realm="${REALM}"` } });
  }
  return principal;
}
