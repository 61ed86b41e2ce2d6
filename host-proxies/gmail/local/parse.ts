/**
 * Raw RFC 5322 bytes to `MessageParts`, with mailparser (nodemailer project) doing the MIME
 * work: multipart trees, transfer encodings, body charsets, RFC 2231 file names. Headers are
 * taken as written (mailparser's `headerLines`, which hold the raw bytes as latin1) and decoded
 * by shape.ts, so both backends read headers the same way; an 8-bit header that is not UTF-8
 * is read as windows-1252 (charset.ts), where mailparser's own fields would show U+FFFD.
 */
import type { Attachment } from "mailparser";
import { decodeBytes } from "../charset.js";
import type { MessageParts, RawHeader } from "../shape.js";
import type { AttachmentInfo } from "../types.js";

/** Appended to the text of a message cut at the size limit, so nobody mistakes it for whole. */
export const TRUNCATED_NOTE = "[clawhive: message truncated at the size limit]";

export async function parseMessage(bytes: Buffer, options: { truncated?: boolean } = {}): Promise<MessageParts> {
  // mailparser is loaded with the first local message read, not with every runtime.
  const { simpleParser } = await import("mailparser");
  const mail = await simpleParser(bytes, {
    skipHtmlToText: true,
    skipImageLinks: true,
    skipTextLinks: true,
    skipTextToHtml: true,
  });
  const plain = typeof mail.text === "string" ? mail.text : undefined;
  const html = typeof mail.html === "string" ? mail.html : undefined;
  return {
    headers: mail.headerLines.map((h) => rawHeader(h.line)),
    plain: options.truncated === true ? `${plain ?? ""}\n\n${TRUNCATED_NOTE}` : plain,
    html,
    htmlSeparate: plain !== undefined && html !== undefined && htmlStandsAlone(bytes, mail.attachments.filter((a) => a.contentType === "text/html").length),
    attachments: mail.attachments.filter(isListed).map(attachmentInfo),
  };
}

/**
 * Whether some text/html part is not one side of a multipart/alternative: more HTML part
 * headers than alternative containers. mailparser joins all text and all HTML parts, so the
 * MIME headers themselves are counted (each alternative holds at most one HTML version; HTML
 * files attached as attachments are not body parts).
 */
function htmlStandsAlone(bytes: Buffer, htmlAttachments: number): boolean {
  const text = bytes.toString("latin1");
  const count = (re: RegExp) => text.match(re)?.length ?? 0;
  const html = count(/^content-type:[ \t]*text\/html\b/gim);
  const alternatives = count(/^content-type:[ \t]*multipart\/alternative\b/gim);
  return html - htmlAttachments > alternatives;
}

function rawHeader(line: string): RawHeader {
  const text = decodeBytes(Buffer.from(line, "latin1"));
  const colon = text.indexOf(":");
  if (colon === -1) return { name: text.trim(), value: "" };
  return { name: text.slice(0, colon).trim(), value: text.slice(colon + 1).replace(/^[ \t]+/, "") };
}

/**
 * Named parts and parts marked `attachment`. Unnamed inline non-text parts (an Apple
 * text/watch-html alternative) are not attachments a person would see, and Gmail gives them
 * no file name either.
 */
function isListed(a: Attachment): boolean {
  return (a.filename ?? "") !== "" || a.contentDisposition === "attachment";
}

function attachmentInfo(a: Attachment): AttachmentInfo {
  // The declared type, as Gmail reports it (mailparser guesses one for octet-stream).
  const declared = a.headers.get("content-type");
  const mimeType = typeof declared === "object" && declared !== null && "value" in declared ? String(declared.value) : a.contentType;
  return { filename: a.filename ?? "", mimeType: mimeType.toLowerCase(), size: BigInt(a.size) };
}
