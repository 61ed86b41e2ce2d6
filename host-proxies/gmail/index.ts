/** `clawhive:host/gmail`: mail under granted labels, from the Gmail API or a local Maildir/mbox. */
export { createGmailProxy, MAX_RESULTS_LIMIT } from "./proxy.js";
export type { GmailProxy, GmailProxyOptions } from "./proxy.js";
export { isStateLabel, labelAllowed } from "./labels.js";
export { andQueries, checkQueryPiece } from "./query-guard.js";
export { GMAIL_CAPABILITY, GMAIL_DENIAL_REASONS } from "./reasons.js";
export type { GmailDenialReason } from "./reasons.js";
export { gmailHostFunctions, parseListRequestRecord, GMAIL_HOST_FUNCTION_NAMES } from "./host-functions.js";
export type { GmailHostFunctionName } from "./host-functions.js";
export { GmailApiBackend } from "./api/gmail-api-backend.js";
export type { GmailApiBackendOptions } from "./api/gmail-api-backend.js";
export { MaildirBackend } from "./local/maildir-backend.js";
export type { MaildirBackendOptions } from "./local/maildir-backend.js";
export type { MboxSource } from "./local/mbox.js";
export { compileSearch, LOCAL_SEARCH_OPERATORS } from "./search-match.js";
export type { SearchDoc, SearchMatcher, SearchOperator } from "./search-match.js";
export type {
  AttachmentInfo,
  BackendListRequest,
  ListRequest,
  ListResult,
  MailBackend,
  Message,
  MessageSummary,
} from "./types.js";
