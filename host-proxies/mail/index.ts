/** `clawhive:host/mail`: sending mail to granted recipients, over SMTP or the Gmail API. */
export { createMailProxy } from "./proxy.js";
export type { MailProxy, MailProxyOptions } from "./proxy.js";
export { canonicalAddress, canonicalDomain, canonicalRecipientPattern, parseRecipientPattern, recipientMatches, recipientPatternCovers } from "./address.js";
export type { MailAddress, RecipientPattern } from "./address.js";
export { allRecipients, checkOutgoingMail, MAX_BODY_BYTES, MAX_RECIPIENTS, MAX_SUBJECT } from "./check.js";
export { composeMail } from "./compose.js";
export type { ComposeOptions } from "./compose.js";
export { SmtpTransport } from "./smtp-transport.js";
export type { SmtpTransportOptions } from "./smtp-transport.js";
export { GmailTransport } from "./gmail-transport.js";
export type { GmailTransportOptions } from "./gmail-transport.js";
export { mailHostFunctions, parseOutgoingRecord, MAIL_HOST_FUNCTION_NAMES } from "./host-functions.js";
export { MAIL_CAPABILITY, MAIL_DENIAL_REASONS } from "./reasons.js";
export type { MailDenialReason } from "./reasons.js";
export type { CheckedMail, MailTransport, OutgoingMail, SendReceipt } from "./types.js";
