import type { Logger } from "../../log/index.js";
/**
 * Who is calling: the token a request authenticated with and its role. Roles (issue 7):
 * `admin` may do everything (plugins, agents, secrets, tokens — and what the other roles do);
 * `approver` decides approvals and reads what it needs to decide them; `client` starts runs and
 * reads only its own runs' events and audit. A role is not a ladder: `approver` may not start
 * runs and `client` may not approve, so a leaked client token cannot approve its own Guarded calls.
 */
export const ROLES = ["admin", "approver", "client"] as const;
export type Role = (typeof ROLES)[number];

export interface Principal {
  /** `tok_<16 hex>`: what a run records as its owner. */
  readonly tokenId: string;
  readonly role: Role;
  /**
   * Who decides, when that is a person rather than a token: the command line's in-process client
   * on the store (`--by NAME`, else the user's name). Decisions and acceptances record it in
   * place of the token id; a token presented over HTTP never has one.
   */
  readonly actor?: string;
}

/**
 * The token a run, conversation or schedule it starts is owned by: none for a person on the
 * store (what they start is the store's, readable by every admin and by them in any later
 * command), else the calling token.
 */
export function ownerOf(principal: Principal): string | null {
  return principal.actor === undefined ? principal.tokenId : null;
}

/** The name a decision or acceptance is recorded under: the person, else the token. */
export function deciderOf(principal: Principal): string {
  return principal.actor ?? principal.tokenId;
}

/** Hono's environment for every API route: `c.get("principal")` once `authenticate` ran. */
export interface ApiEnv {
  Variables: { principal: Principal | undefined; log: Logger | undefined; requestId: string | undefined };
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** True when `role` may use a route that allows `allowed`; `admin` may use every route. */
export function roleAllows(role: Role, allowed: readonly Role[]): boolean {
  return role === "admin" || allowed.includes(role);
}

/**
 * May `principal` read a run (its events, its audit) owned by `ownerTokenId`? Admins read every
 * run; a client only the runs it started; an approver none (it sees what an approval shows).
 * Routes answer 404 rather than 403 for a run the caller may not read, so a client cannot probe
 * for other clients' run ids.
 */
export function mayReadRun(principal: Principal, ownerTokenId: string | null): boolean {
  if (principal.role === "admin") return true;
  return principal.role === "client" && ownerTokenId !== null && ownerTokenId === principal.tokenId;
}
