import type { CreatedToken, TokenStore } from "./token-store.js";

/**
 * First start: when the store has no API token at all, creates an admin token and returns it —
 * the only time its text exists; the caller prints it once (the store keeps only its hash).
 * Undefined on every later start, even if every token was revoked since: recover with
 * `clawhive token create --role admin`, which needs access to the store itself.
 */
export async function ensureAdminToken(tokens: TokenStore): Promise<CreatedToken | undefined> {
  return tokens.createFirstAdmin();
}
