/**
 * The RFC 5322 message both transports send, written by nodemailer's MailComposer (RFC 2047
 * encoded words for a non-ASCII subject, quoted-printable or base64 text, folded headers). Only
 * checked values reach it (check.ts): no header text with a line break, no attachment, no file
 * or URL to read, so composing touches nothing outside the message.
 */
import MailComposer from "nodemailer/lib/mail-composer";
import type { CheckedMail } from "./types.js";

export interface ComposeOptions {
  from: string;
  messageId: string;
  /**
   * Keep the Bcc header in the message: the Gmail API reads recipients from the headers (and
   * removes Bcc before delivery); over SMTP, Bcc recipients travel only in the envelope.
   */
  keepBcc: boolean;
  date?: Date;
}

export async function composeMail(mail: CheckedMail, options: ComposeOptions): Promise<Buffer> {
  const node = new MailComposer({
    from: options.from,
    to: mail.to,
    cc: mail.cc,
    bcc: mail.bcc,
    subject: mail.subject,
    text: mail.body,
    messageId: options.messageId,
    date: options.date ?? new Date(),
    disableFileAccess: true,
    disableUrlAccess: true,
  }).compile();
  node.keepBcc = options.keepBcc;
  return node.build();
}
