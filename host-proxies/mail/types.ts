/**
 * The host side of `wit/host/mail.wit` (records as jco lifts them: camelCase) and the
 * `MailTransport` interface the proxy sends through (SMTP, the Gmail API).
 */

/** `mail.outgoing`: what a guest asks to send. */
export interface OutgoingMail {
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  /** Plain text; sent as text/plain in UTF-8. */
  body: string;
}

/** An `OutgoingMail` after the proxy's checks: every address canonical, the text within bounds. */
export interface CheckedMail {
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  body: string;
}

/** `mail.receipt`: what the transport reported. */
export interface SendReceipt {
  /** The Message-ID header sent, `<…@…>`. */
  messageId: string;
  /** The recipients the server accepted (SMTP), or every recipient (the Gmail API says no more). */
  accepted: string[];
  /** The transport's own id: the Gmail message id, or the SMTP server's queue answer. */
  transportId: string;
}

/**
 * Delivers one checked message. Transports decide nothing: the proxy has checked every address
 * against the grant before a transport sees it. Throw `HostProxyError` only (`io` for a server
 * that fails or does not answer within `signal`, `denied` `token-rejected` for a refused token).
 */
export interface MailTransport {
  /** `smtp` or `gmail`, for records and messages. */
  readonly kind: string;
  /** The sender every message carries (From and the envelope's MAIL FROM). */
  readonly from: string;
  send(mail: CheckedMail, options: { messageId: string; signal: AbortSignal }): Promise<SendReceipt>;
}
