/**
 * The stable reason codes of mail.send denials. Operators, the policy engine and tests match on
 * these strings, so they never change meaning.
 */
import { HostProxyError } from "../types.js";

export const MAIL_CAPABILITY = "mail.send";

export const MAIL_DENIAL_REASONS = {
  /** A recipient (To, Cc or Bcc) matches no recipient pattern of the grant. */
  recipientNotGranted: "recipient-not-granted",
  /** More recipients than the grant's `max_recipients`. */
  tooManyRecipients: "too-many-recipients",
  /** The Gmail API (or Google's token endpoint) refused the OAuth token. */
  tokenRejected: "token-rejected",
} as const;

export type MailDenialReason = (typeof MAIL_DENIAL_REASONS)[keyof typeof MAIL_DENIAL_REASONS];

export function mailDenied(reason: MailDenialReason, message: string): HostProxyError {
  return HostProxyError.denied(MAIL_CAPABILITY, reason, message);
}
