/**
 * The Gmail API's JSON (the few `Message`/`MessagePart` fields read, typed by hand from the
 * discovery document) turned into `MessageParts`. The rule for which parts are body text and
 * which are attachments is mailparser's, so this backend and the local one agree: a text/plain
 * or text/html leaf without a `Content-Disposition` other than `inline` is body; any other leaf
 * is listed as an attachment when it has a file name or is marked `attachment`.
 */
import { charsetOf, decodeBytes } from "../charset.js";
import { TRUNCATED_NOTE } from "../local/parse.js";
import type { MessageParts, RawHeader } from "../shape.js";
import { headerValue } from "../shape.js";
import type { AttachmentInfo } from "../types.js";

export interface GmailMessagePart {
  partId?: string;
  mimeType?: string;
  filename?: string;
  headers?: Array<{ name?: string; value?: string }>;
  body?: { attachmentId?: string; data?: string; size?: number };
  parts?: GmailMessagePart[];
}

export interface GmailMessage {
  id?: string;
  threadId?: string;
  labelIds?: string[];
  snippet?: string;
  internalDate?: string;
  payload?: GmailMessagePart;
}

/** Deeper MIME trees are not walked further (a message is not a place for recursion bombs). */
const MAX_DEPTH = 50;
/**
 * Decoded body text kept per message, all parts together: what the local backend's message size
 * cap allows, so both backends hand a guest at most this much. Parts past it are not decoded.
 */
export const MAX_TEXT_BYTES = 32 * 1024 * 1024;

interface Found {
  plain: string[];
  html: string[];
  attachments: AttachmentInfo[];
  /** Decoded text bytes so far, against `maxTextBytes`. */
  textBytes: number;
  maxTextBytes: number;
  truncated: boolean;
}

export function headersOf(part: GmailMessagePart | undefined): RawHeader[] {
  return (part?.headers ?? []).map((h) => ({ name: String(h.name ?? ""), value: String(h.value ?? "") }));
}

export function partsOf(payload: GmailMessagePart | undefined, options: { maxTextBytes?: number } = {}): MessageParts {
  const found: Found = { plain: [], html: [], attachments: [], textBytes: 0, maxTextBytes: options.maxTextBytes ?? MAX_TEXT_BYTES, truncated: false };
  if (payload !== undefined) walk(payload, found, 0);
  const plain = found.plain.length > 0 ? found.plain.join("\n") : undefined;
  return {
    headers: headersOf(payload),
    plain: found.truncated ? `${plain ?? ""}\n\n${TRUNCATED_NOTE}` : plain,
    // mailparser joins HTML parts the same way.
    html: found.html.length > 0 ? found.html.join("<br/>\n") : undefined,
    attachments: found.attachments,
  };
}

function walk(part: GmailMessagePart, found: Found, depth: number): void {
  if (depth > MAX_DEPTH) return;
  const mimeType = (part.mimeType ?? "text/plain").toLowerCase();
  if (mimeType.startsWith("multipart/") || (part.parts?.length ?? 0) > 0) {
    for (const child of part.parts ?? []) walk(child, found, depth + 1);
    return;
  }
  const headers = headersOf(part);
  const disposition = (headerValue(headers, "content-disposition") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const isText = mimeType === "text/plain" || mimeType === "text/html";
  if (isText && (disposition === "" || disposition === "inline")) {
    const data = part.body?.data ?? "";
    // base64 shrinks 4 to 3: the decoded size is known before decoding.
    const size = Math.floor((data.length * 3) / 4);
    if (found.textBytes + size > found.maxTextBytes) {
      found.truncated = true;
      return;
    }
    found.textBytes += size;
    const bytes = Buffer.from(data, "base64url");
    const text = decodeBytes(bytes, charsetOf(headerValue(headers, "content-type")));
    (mimeType === "text/plain" ? found.plain : found.html).push(text);
  } else if ((part.filename ?? "") !== "" || disposition === "attachment") {
    found.attachments.push({ filename: part.filename ?? "", mimeType, size: BigInt(Math.max(0, Math.trunc(part.body?.size ?? 0))) });
  }
}

/** Gmail's snippets are HTML-escaped (`&#39;`, `&amp;`): give the text back. */
export function snippetText(snippet: string | undefined): string {
  return (snippet ?? "").replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|amp|lt|gt|quot|apos|nbsp);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };
    if (Object.hasOwn(named, lower)) return named[lower] ?? whole;
    const code = lower.startsWith("#x") ? Number.parseInt(lower.slice(2), 16) : Number.parseInt(lower.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
