/**
 * The fake Gmail server's mailbox: the corpus as Gmail would hold it (ids, thread ids, label
 * ids, internal dates), rendered as the API's JSON for each `format`. Searches use the local
 * backend's search subset plus `in:` and `category:`, which real Gmail has and the guard tests
 * need (`in:anywhere`); query semantics are not what the fake checks, shapes are.
 */
import { createHash } from "node:crypto";
import libmime from "libmime";
import { LOCAL_SEARCH_OPERATORS } from "../../../../host-proxies/gmail/index.js";
import type { SearchDoc, SearchOperator } from "../../../../host-proxies/gmail/index.js";
import type { CorpusMessage } from "../_corpus.js";
import { parseMime, utf8Body } from "./mime.js";
import type { MimeNode } from "./mime.js";

export interface FakeLabel {
  id: string;
  name: string;
  type: "system" | "user";
}

export interface FakeMessage {
  id: string;
  threadId: string;
  labelIds: string[];
  internalDate: number;
  raw: Buffer;
  root: MimeNode;
  snippet: string;
  doc: SearchDoc;
  /** For tests: where it came from. */
  source: CorpusMessage;
}

export interface FakeMailbox {
  labels: FakeLabel[];
  messages: FakeMessage[];
}

const SYSTEM_LABELS = ["INBOX", "SPAM", "TRASH", "UNREAD", "STARRED", "IMPORTANT", "SENT", "DRAFT", "CATEGORY_PERSONAL"];

export const FAKE_SEARCH_OPERATORS: Readonly<Record<string, SearchOperator>> = {
  ...LOCAL_SEARCH_OPERATORS,
  in: { match: (v, doc) => v.toLowerCase() === "anywhere" || doc.labels.some((l) => l.toLowerCase() === v.toLowerCase()) },
  category: { match: () => false },
};

export function buildMailbox(corpus: readonly CorpusMessage[]): FakeMailbox {
  const labels: FakeLabel[] = SYSTEM_LABELS.map((id) => ({ id, name: id, type: "system" }));
  const labelId = (name: string): string => {
    let label = labels.find((l) => l.name === name);
    if (label === undefined) labels.push((label = { id: `Label_${labels.length - SYSTEM_LABELS.length + 1}`, name, type: "user" }));
    return label.id;
  };
  const messages = corpus.map((source) => toFakeMessage(source, labelId));
  assignThreads(messages);
  return { labels, messages };
}

function toFakeMessage(source: CorpusMessage, labelId: (name: string) => string): FakeMessage {
  const root = parseMime(source.bytes);
  const header = (name: string) => root.headers.find((h) => h.name.toLowerCase() === name)?.value ?? "";
  const names = [source.label, ...(source.unread ? ["UNREAD"] : []), ...(source.starred ? ["STARRED"] : [])];
  const date = Date.parse(header("date"));
  const text = bodyOf(root);
  return {
    id: createHash("sha256").update(`${source.label}\0${source.name}`).digest("hex").slice(0, 16),
    threadId: "",
    labelIds: names.map(labelId),
    internalDate: Number.isNaN(date) ? 0 : date,
    raw: source.bytes,
    root,
    snippet: text.replace(/\s+/g, " ").trim().slice(0, 200),
    doc: {
      from: libmime.decodeWords(header("from")),
      to: libmime.decodeWords(header("to")),
      subject: libmime.decodeWords(header("subject")),
      text,
      labels: names,
      unread: source.unread,
      dateMs: Number.isNaN(date) ? 0 : date,
    },
    source,
  };
}

/** Gmail threads by References/In-Reply-To (and subject, not modelled); a thread's id is its first message's. */
function assignThreads(messages: FakeMessage[]): void {
  const rootOf = (m: FakeMessage) => {
    const header = (name: string) => m.root.headers.find((h) => h.name.toLowerCase() === name)?.value ?? "";
    return header("references").match(/<[^>]+>/)?.[0] ?? header("in-reply-to").match(/<[^>]+>/)?.[0] ?? header("message-id").match(/<[^>]+>/)?.[0] ?? m.id;
  };
  const groups = new Map<string, FakeMessage[]>();
  for (const m of messages) groups.set(rootOf(m), [...(groups.get(rootOf(m)) ?? []), m]);
  for (const group of groups.values()) {
    const first = [...group].sort((a, b) => a.internalDate - b.internalDate)[0];
    for (const m of group) m.threadId = first?.id ?? m.id;
  }
}

/** The first inline text/plain leaf, else the first text/html one with its tags stripped. */
function bodyOf(root: MimeNode): string {
  const leaves: MimeNode[] = [];
  const walk = (n: MimeNode) => (n.children.length > 0 ? n.children.forEach(walk) : leaves.push(n));
  walk(root);
  const inline = leaves.filter((n) => n.filename === "" && n.disposition !== "attachment");
  const plain = inline.find((n) => n.mimeType === "text/plain");
  if (plain !== undefined) return utf8Body(plain).toString("utf8");
  const html = inline.find((n) => n.mimeType === "text/html");
  return html === undefined ? "" : utf8Body(html).toString("utf8").replace(/<[^>]*>/g, " ").replace(/&amp;/g, "&");
}

/** Gmail escapes snippets as HTML. */
function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

export type MessageFormat = "full" | "metadata" | "minimal" | "raw";

/** `users.messages.get` / the messages of `users.threads.get` in `format`. */
export function messageJson(m: FakeMessage, format: MessageFormat, metadataHeaders: readonly string[] = []): Record<string, unknown> {
  const base = { id: m.id, threadId: m.threadId, labelIds: m.labelIds, snippet: escapeHtml(m.snippet), sizeEstimate: m.raw.length, historyId: "4242", internalDate: String(m.internalDate) };
  if (format === "minimal") return base;
  if (format === "raw") return { ...base, raw: m.raw.toString("base64url") };
  if (format === "full") return { ...base, payload: partJson(m.root, "") };
  const wanted = metadataHeaders.map((h) => h.toLowerCase());
  const headers = m.root.headers.filter((h) => wanted.length === 0 || wanted.includes(h.name.toLowerCase()));
  return { ...base, payload: { partId: "", mimeType: m.root.mimeType, filename: "", headers, body: { size: 0 } } };
}

function partJson(node: MimeNode, partId: string): Record<string, unknown> {
  const part: Record<string, unknown> = { partId, mimeType: node.mimeType, filename: node.filename, headers: node.headers.map((h) => ({ name: h.name, value: h.value })) };
  if (node.children.length > 0) {
    part.body = { size: 0 };
    part.parts = node.children.map((child, i) => partJson(child, partId === "" ? String(i) : `${partId}.${i}`));
  } else if (node.filename !== "") {
    const attachmentId = `ANGjdJ${createHash("sha256").update(node.body).digest("base64url").slice(0, 40)}`;
    part.body = { attachmentId, size: node.body.length };
  } else {
    const data = node.mimeType.startsWith("text/") ? utf8Body(node) : node.body;
    part.body = { size: data.length, data: data.toString("base64url") };
  }
  return part;
}
