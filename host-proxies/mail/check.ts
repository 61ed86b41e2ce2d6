/**
 * The checks an outgoing message passes before anyone is asked about it or any transport sees
 * it: every address bare and canonical (address.ts), the subject one line, the sizes bounded.
 * The same function serves the policy gate (before an approval is asked) and the proxy (before
 * the send), so a person approves exactly what would be sent.
 */
import { HostProxyError } from "../types.js";
import { canonicalAddress } from "./address.js";
import type { CheckedMail, OutgoingMail } from "./types.js";

/** RFC 5322 §2.1.1: a line is at most 998 characters; the subject is one line. */
export const MAX_SUBJECT = 998;
export const MAX_BODY_BYTES = 1024 * 1024;
/** However wide a grant, one send reaches at most this many recipients. */
export const MAX_RECIPIENTS = 100;
// Any control character but tab (RFC 5322 §3.2.5 unstructured text), and Unicode line breaks.
const SUBJECT_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/;

export function checkOutgoingMail(mail: OutgoingMail): CheckedMail {
  const lists = { to: addresses(mail.to, "to"), cc: addresses(mail.cc, "cc"), bcc: addresses(mail.bcc, "bcc") };
  if (lists.to.length === 0) throw HostProxyError.invalidInput("mail: to: expected at least one recipient");
  const all = [...lists.to, ...lists.cc, ...lists.bcc];
  if (all.length > MAX_RECIPIENTS) throw HostProxyError.invalidInput(`mail: at most ${MAX_RECIPIENTS} recipients in one message, got ${all.length}`);
  if (new Set(all).size !== all.length) throw HostProxyError.invalidInput("mail: a recipient is named twice (To, Cc and Bcc together)");
  if (typeof mail.subject !== "string") throw HostProxyError.invalidInput("mail: subject: expected a string");
  if (SUBJECT_CONTROL.test(mail.subject)) throw HostProxyError.invalidInput("mail: subject: contains a line break or a control character (header injection is refused)");
  if (mail.subject.length > MAX_SUBJECT) throw HostProxyError.invalidInput(`mail: subject: longer than ${MAX_SUBJECT} characters`);
  if (typeof mail.body !== "string") throw HostProxyError.invalidInput("mail: body: expected a string");
  if (Buffer.byteLength(mail.body) > MAX_BODY_BYTES) throw HostProxyError.invalidInput(`mail: body: larger than ${MAX_BODY_BYTES} bytes`);
  return { ...lists, subject: mail.subject, body: mail.body };
}

/** Every recipient of a checked message, To then Cc then Bcc. */
export function allRecipients(mail: Pick<CheckedMail, "to" | "cc" | "bcc">): string[] {
  return [...mail.to, ...mail.cc, ...mail.bcc];
}

function addresses(list: unknown, field: string): string[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw HostProxyError.invalidInput(`mail: ${field}: expected a list of addresses`);
  if (list.length > MAX_RECIPIENTS) throw HostProxyError.invalidInput(`mail: ${field}: at most ${MAX_RECIPIENTS} addresses`);
  return list.map((a, i) => canonicalAddress(a, `${field}[${i}]`).address);
}
