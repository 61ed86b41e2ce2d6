/**
 * From headers and body parts to the WIT records, the same way for every backend: each backend
 * finds the parts (mailparser for local files, the `MessagePart` tree for the Gmail API), and
 * this file decides what the guest sees, so two backends cannot disagree about a message.
 */
import { decodeEncodedWords } from "./encoded-words.js";
import { parseMailDate } from "./mail-date.js";
import type { AttachmentInfo, Message, MessageSummary } from "./types.js";

/** A header as written: RFC 2047 words not yet decoded, folding allowed. */
export interface RawHeader {
  name: string;
  value: string;
}

/** What a backend found in a message's MIME structure. */
export interface MessageParts {
  /** Top-level headers in order. */
  headers: RawHeader[];
  /** The inline text/plain bodies, decoded and joined by `\n`; undefined when there is none. */
  plain: string | undefined;
  /** The inline text/html bodies, decoded and joined; undefined when there is none. */
  html: string | undefined;
  /**
   * Whether an HTML part stands on its own (multipart/mixed) rather than as another version of
   * the text/plain (multipart/alternative): its text is then part of the body too.
   */
  htmlSeparate?: boolean | undefined;
  attachments: AttachmentInfo[];
}

/** What the backend knows about a message beyond its bytes. */
export interface MessageMeta {
  id: string;
  threadId: string;
  labels: string[];
  unread: boolean;
  /** The backend's own snippet (Gmail computes one); otherwise taken from the text. */
  snippet?: string | undefined;
  /** When the Date header is missing or unreadable: delivery time, epoch ms. */
  fallbackDateMs?: number | undefined;
}

const SNIPPET_CHARS = 200;
/**
 * Characters of one header value decoded for display. RFC 5322 lines are at most 998
 * characters; a long recipient list fills a few dozen KB. Beyond this a value is hostile, and
 * decoding it whole (libmime runs at a few MB/s) would hold the main thread.
 */
export const MAX_HEADER_CHARS = 256 * 1024;

/** The first header called `name` (case-insensitive), as written. */
export function headerValue(headers: readonly RawHeader[], name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find((h) => h.name.toLowerCase() === lower)?.value;
}

/**
 * Every header called `name`, decoded and joined by `, `: RFC 5322 allows one Cc, but real mail
 * (list software, hand-rolled senders) repeats address headers, and a reader must see every
 * recipient. Empty when there is none.
 */
export function addressHeaderText(headers: readonly RawHeader[], name: string): string {
  const lower = name.toLowerCase();
  return headers
    .filter((h) => h.name.toLowerCase() === lower)
    .map((h) => headerText(h.value))
    .filter((text) => text !== "")
    .join(", ");
}

/** Unfolded (RFC 5322 §2.2.3) and RFC 2047-decoded, trimmed. */
export function headerText(raw: string | undefined): string {
  if (raw === undefined) return "";
  return decodeEncodedWords(unfold(raw.length > MAX_HEADER_CHARS ? raw.slice(0, MAX_HEADER_CHARS) : raw)).trim();
}

export function unfold(value: string): string {
  return value.replace(/\r?\n(?=[ \t])/g, "");
}

/** The `<id@host>` tokens of a Message-ID, In-Reply-To or References value, in order. */
export function messageIds(raw: string | undefined): string[] {
  return unfold(raw ?? "").match(/<[^<>\s]+>/g) ?? [];
}

/** RFC 3339 in UTC, whole seconds: the Date header, else `fallbackMs`, else the epoch. */
export function rfc3339(dateHeader: string | undefined, fallbackMs?: number): string {
  return formatDate(dateOf(dateHeader, fallbackMs).ms);
}

/**
 * The date a summary shows and, when that is not the Date header (missing or unreadable), a
 * note saying so: the delivery time must never pass silently for the sending time.
 */
export function dateOf(dateHeader: string | undefined, fallbackMs?: number): { ms: number; note?: string } {
  const ms = dateHeader === undefined ? undefined : parseMailDate(dateHeader);
  if (ms !== undefined && Number.isFinite(ms) && Math.abs(ms) <= 8.64e15) return { ms };
  const shown = fallbackMs === undefined ? "the epoch (no delivery time is known)" : "the delivery time";
  const header = dateHeader === undefined ? "it has no Date header" : `its Date header ${JSON.stringify(unfold(dateHeader).trim().slice(0, 80))} cannot be read`;
  return { ms: fallbackMs ?? 0, note: `${header}; the date shown is ${shown}` };
}

function formatDate(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * Whitespace collapsed, at most 200 characters (Gmail's snippets are about that long). Words
 * are taken only until there are enough, so a body of megabytes costs no more than its start.
 */
export function snippetOf(text: string): string {
  const words: string[] = [];
  let length = 0;
  for (const match of text.matchAll(/\S+/g)) {
    words.push(match[0]);
    length += match[0].length + 1;
    if (length > SNIPPET_CHARS * 2) break;
  }
  return Array.from(words.join(" ")).slice(0, SNIPPET_CHARS).join("");
}

/**
 * The message a thread hangs from: the first References id (the root, RFC 5322 §3.6.4), else
 * the parent, else the message itself. Gmail also threads by subject; this does not.
 */
export function threadRoot(headers: readonly RawHeader[]): string | undefined {
  return (
    messageIds(headerValue(headers, "references"))[0] ??
    messageIds(headerValue(headers, "in-reply-to"))[0] ??
    messageIds(headerValue(headers, "message-id"))[0]
  );
}

export function summaryOf(headers: readonly RawHeader[], meta: MessageMeta & { snippet: string }): MessageSummary {
  const date = dateOf(headerValue(headers, "date"), meta.fallbackDateMs);
  return {
    id: meta.id,
    threadId: meta.threadId,
    from: headerText(headerValue(headers, "from")),
    to: addressHeaderText(headers, "to"),
    subject: headerText(headerValue(headers, "subject")),
    date: formatDate(date.ms),
    snippet: meta.snippet,
    labels: [...meta.labels],
    unread: meta.unread,
    ...(date.note === undefined ? {} : { dateNote: date.note }),
  };
}

/** `text` is the body as `bodyText` gives it, computed by the caller off the main thread. */
export function messageOf(parts: MessageParts, meta: MessageMeta, text: string): Message {
  const { headers } = parts;
  return {
    summary: summaryOf(headers, { ...meta, snippet: meta.snippet ?? snippetOf(text) }),
    text,
    attachments: parts.attachments.map((a) => ({ ...a })),
    cc: addressHeaderText(headers, "cc"),
    bcc: addressHeaderText(headers, "bcc"),
    replyTo: addressHeaderText(headers, "reply-to"),
    sender: headerText(headerValue(headers, "sender")),
    messageId: messageIds(headerValue(headers, "message-id"))[0] ?? "",
    inReplyTo: messageIds(headerValue(headers, "in-reply-to"))[0],
    references: messageIds(headerValue(headers, "references")),
  };
}
