/**
 * Sending through the Gmail API: `POST gmail/v1/users/me/messages/send` with the whole RFC 5322
 * message as `raw`, base64url (RFC 4648 §5), Bcc kept in the headers (Gmail delivers to the
 * header recipients and removes Bcc). The answer is a Message resource, `{id, threadId,
 * labelIds}`. The access token comes from the host's OAuth refresh, per request; a plugin never
 * sees it. A 401 or a non-rate-limit 403 is a `token-rejected` denial under `mail.send`.
 */
import { GmailApiClient, type GmailApiClientOptions } from "../gmail/api/client.js";
import { HostProxyError } from "../types.js";
import { allRecipients } from "./check.js";
import { composeMail } from "./compose.js";
import { MAIL_CAPABILITY } from "./reasons.js";
import type { CheckedMail, MailTransport, SendReceipt } from "./types.js";

export interface GmailTransportOptions extends Omit<GmailApiClientOptions, "capability"> {
  /** The account's address: the From header (Gmail rewrites a From the account may not use). */
  from: string;
}

export class GmailTransport implements MailTransport {
  readonly kind = "gmail";
  readonly from: string;
  readonly #client: GmailApiClient;

  constructor(token: () => Promise<string>, options: GmailTransportOptions) {
    const { from, ...client } = options;
    this.from = from;
    this.#client = new GmailApiClient(token, { ...client, capability: MAIL_CAPABILITY });
  }

  async send(mail: CheckedMail, options: { messageId: string; signal: AbortSignal }): Promise<SendReceipt> {
    const raw = await composeMail(mail, { from: this.from, messageId: options.messageId, keepBcc: true });
    if (options.signal.aborted) throw HostProxyError.io("mail: the send was stopped before it reached the Gmail API");
    const sent = await this.#client.post<{ id?: unknown; threadId?: unknown }>("gmail/v1/users/me/messages/send", { raw: raw.toString("base64url") }, "messages.send");
    if (typeof sent.id !== "string") throw HostProxyError.io("mail: the Gmail API answered messages.send without a message id");
    return { messageId: options.messageId, accepted: allRecipients(mail), transportId: sent.id };
  }
}
