/**
 * The stable reason codes of gmail denials. Operators, the policy engine and tests match on
 * these strings, so they never change meaning. (The policy catalogue's own matcher,
 * runtime/policy/catalogue/gmail.ts, says `label-not-allowed` for a refused request label; the
 * proxy's code names the same rule as seen from the proxy's own grant.)
 */
import { HostProxyError } from "../types.js";

export const GMAIL_CAPABILITY = "gmail.read";

export const GMAIL_DENIAL_REASONS = {
  /** The label asked for, or every label of a fetched message or thread, is outside the grant. */
  labelNotGranted: "label-not-granted",
  /** The Gmail API refused the OAuth token (401, or 403 that is not a rate limit). */
  tokenRejected: "token-rejected",
} as const;

export type GmailDenialReason = (typeof GMAIL_DENIAL_REASONS)[keyof typeof GMAIL_DENIAL_REASONS];

export function gmailDenied(reason: GmailDenialReason, message: string): HostProxyError {
  return HostProxyError.denied(GMAIL_CAPABILITY, reason, message);
}
