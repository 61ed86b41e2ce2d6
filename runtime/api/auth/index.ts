/**
 * The API's authentication: bearer tokens with roles, kept hashed in the store. `authenticate`
 * finds who is calling, `requireRole` decides per route, `mayReadRun` per run.
 */
export { ROLES, isRole, roleAllows, mayReadRun } from "./principal.js";
export type { ApiEnv, Principal, Role } from "./principal.js";
export { openTokenStore, TokenStore, checkTokenId } from "./token-store.js";
export type { CreatedToken, CreateTokenOptions, TokenInfo } from "./token-store.js";
export { tokenMigrations } from "./schema.js";
export { ensureAdminToken } from "./admin-token.js";
export { authenticate, REALM } from "./authenticate.js";
export { principalOf, requireRole } from "./require-role.js";
