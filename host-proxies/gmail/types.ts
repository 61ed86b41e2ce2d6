/**
 * The host side of `wit/host/gmail.wit` (records as jco lifts them: camelCase, `option` →
 * `undefined`, `u64` → bigint) and the `MailBackend` interface the proxy reads through.
 */

/** `gmail.message-summary`. */
export interface MessageSummary {
  id: string;
  threadId: string;
  /** The decoded header as written (`Name <address>, …`); empty when absent. */
  from: string;
  to: string;
  subject: string;
  /** RFC 3339, UTC, whole seconds: `2016-10-13T11:39:48Z`. */
  date: string;
  snippet: string;
  labels: string[];
  unread: boolean;
  /**
   * Host side only (the proxy takes it off before a guest sees the record): why `date` is not
   * the Date header (missing or unreadable), told to the caller as a warning.
   */
  dateNote?: string | undefined;
}

/** `gmail.attachment-info`: what is attached, never its contents. */
export interface AttachmentInfo {
  filename: string;
  mimeType: string;
  /** Decoded size in bytes. */
  size: bigint;
}

/** `gmail.message`. */
export interface Message {
  summary: MessageSummary;
  /** text/plain parts, or the text/html ones converted to text when there is no text/plain. */
  text: string;
  attachments: AttachmentInfo[];
  /** Decoded as written (groups kept), empty when absent; several headers of one name joined by `, `. */
  cc: string;
  bcc: string;
  replyTo: string;
  /** Who sent the message on From's behalf (RFC 5322 §3.6.2), empty when absent. */
  sender: string;
  /** `<id@host>`, or empty when the message has no Message-ID. */
  messageId: string;
  inReplyTo: string | undefined;
  references: string[];
}

/** `gmail.list-request`. */
export interface ListRequest {
  label: string;
  query: string | undefined;
  maxResults: number | undefined;
  pageToken: string | undefined;
}

/** `gmail.list-result`. */
export interface ListResult {
  messages: MessageSummary[];
  nextPageToken: string | undefined;
}

/** What the proxy asks a backend for: one label, the already-ANDed query, a bounded page. */
export interface BackendListRequest {
  label: string;
  /** A Gmail search; empty means every message under the label. */
  query: string;
  /** 1…500. */
  maxResults: number;
  pageToken: string | undefined;
}

/**
 * A mailbox the gmail proxy reads: the Gmail API or a local Maildir/mbox. Backends decide
 * nothing: they return every label a message has, and the proxy checks them against the grant.
 * Methods throw `HostProxyError` only (`not-found`, `invalid-input` for a query the backend
 * cannot evaluate or a foreign page token, `io`, `denied` `token-rejected`).
 */
export interface MailBackend {
  /** Messages carrying `label` and matching `query`, newest first. */
  listMessages(request: BackendListRequest): Promise<ListResult>;
  getMessage(id: string): Promise<Message>;
  /** Every message of the thread, oldest first; `not-found` when there is none. */
  getThread(threadId: string): Promise<MessageSummary[]>;
}
