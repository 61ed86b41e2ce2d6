import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { errorBody } from "../middleware/api-error.js";
import type { ApiEnv } from "./principal.js";
import type { TokenStore } from "./token-store.js";

export const REALM = "clawhive";

/**
 * Authenticates `Authorization: Bearer <token>` against `tokens` and sets `c.get("principal")`.
 * Hono's `bearerAuth` draws the lines RFC 6750 draws: a missing header is 401 with
 * `WWW-Authenticate: Bearer realm="clawhive"`; a header not of the form `Bearer <token68>`
 * (`Basic …`, `Bearer` alone, `Bearer a b`, non-ASCII) is 400 `invalid_request`; a well-formed
 * token that is unknown, wrong or revoked is 401 `invalid_token` — the same answer for all
 * three, so a caller cannot tell a revoked token from a made-up one. Roles are checked later,
 * per route, by `requireRole`.
 */
export function authenticate(tokens: Pick<TokenStore, "verify">): MiddlewareHandler<ApiEnv> {
  return bearerAuth<ApiEnv>({
    realm: REALM,
    verifyToken: async (token, c) => {
      const principal = await tokens.verify(token);
      if (principal === undefined) return false;
      c.set("principal", principal);
      return true;
    },
    noAuthenticationHeader: {
      message: errorBody("unauthorized", "missing Authorization header: send Authorization: Bearer <token> (see clawhive token create)"),
    },
    invalidAuthenticationHeader: {
      message: errorBody("invalid_authorization", "malformed Authorization header: expected Bearer followed by one token", "authorization"),
    },
    invalidToken: {
      message: errorBody("unauthorized", "the bearer token is unknown or revoked"),
    },
  });
}
