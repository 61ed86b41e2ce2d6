/**
 * `MaildirBackend`, the embedded default: a Maildir++ tree (root = `INBOX`, `.A.B` = `A/B`)
 * plus mbox files read as labels. A message's labels are its folder plus `UNREAD` (no `S`
 * flag / no `R` status) and `STARRED` (`F`), as Gmail would show them; listing `UNREAD` or
 * `STARRED` looks across every folder. Searches use the subset in search-match.ts. Nothing is
 * indexed: a listing parses messages newest first until the page is full (parses are cached),
 * and a thread lookup parses every message once. Parsing runs in a parse worker under a
 * deadline (parse-job.ts), so a hostile message is a clear error, never a stalled server.
 */
import { isAbsolute } from "node:path";
import { InvalidInputError } from "../../../runtime/errors.js";
import { sharedParsePool } from "../../_parse/pool.js";
import type { ParsePool } from "../../_parse/pool.js";
import { HostProxyError } from "../../types.js";
import { compileSearch } from "../search-match.js";
import type { SearchDoc } from "../search-match.js";
import type { MailJobOutput } from "../parse-job.js";
import { messageOf, summaryOf } from "../shape.js";
import type { BackendListRequest, ListResult, MailBackend, Message, MessageSummary } from "../types.js";
import { entryLabels, LOCAL_ID, localId, newestFirst } from "./entry.js";
import type { LocalEntry } from "./entry.js";
import { maildirEntries, maildirFolders } from "./maildir.js";
import { mboxEntries, mboxVersion } from "./mbox.js";
import type { MboxSource } from "./mbox.js";
import { decodePageToken, encodePageToken, searchFingerprint } from "./page-token.js";

export interface MaildirBackendOptions {
  /** mbox files, each read as one label (not `INBOX`, `UNREAD` or `STARRED`). */
  mbox?: readonly MboxSource[];
  /** The clock `newer_than:`/`older_than:` read; default `Date.now`. */
  now?: () => number;
  /** Bytes of one message parsed at most; the text of a longer one says it was cut. Default 32 MiB. */
  maxMessageBytes?: number;
  /** Largest mbox file read. Default 256 MiB. */
  maxMboxBytes?: number;
  /** Parsed messages kept in memory. Default 2000. */
  cacheSize?: number;
  /** Where messages are parsed; default the process's shared pool. */
  parsePool?: ParsePool;
}

type Content = MailJobOutput;

const STATE_LABELS: Record<string, (e: LocalEntry) => boolean> = { UNREAD: (e) => e.unread, STARRED: (e) => e.starred };

export class MaildirBackend implements MailBackend {
  readonly #root: string;
  readonly #mbox: readonly MboxSource[];
  readonly #now: () => number;
  readonly #maxMessageBytes: number;
  readonly #maxMboxBytes: number;
  readonly #cacheSize: number;
  readonly #pool: ParsePool;
  readonly #contents = new Map<string, Promise<Content>>();
  readonly #mboxSplits = new Map<string, { version: string; entries: LocalEntry[] }>();

  /** Throws `InvalidInputError` for a relative root or a bad mbox list. */
  constructor(root: string, options: MaildirBackendOptions = {}) {
    if (!isAbsolute(root)) throw new InvalidInputError(`MaildirBackend: root must be an absolute path, got ${JSON.stringify(root)}`, { field: "root" });
    const labels = (options.mbox ?? []).map((m) => m.label);
    for (const [i, label] of labels.entries()) {
      if (label === "" || label === "INBOX" || label in STATE_LABELS || labels.indexOf(label) !== i) {
        throw new InvalidInputError(`MaildirBackend: mbox[${i}].label: ${JSON.stringify(label)} is empty, reserved or repeated`, { field: `mbox[${i}].label` });
      }
    }
    this.#root = root;
    this.#mbox = (options.mbox ?? []).map((m) => ({ ...m }));
    this.#now = options.now ?? Date.now;
    this.#maxMessageBytes = options.maxMessageBytes ?? 32 * 1024 * 1024;
    this.#maxMboxBytes = options.maxMboxBytes ?? 256 * 1024 * 1024;
    this.#cacheSize = options.cacheSize ?? 2000;
    this.#pool = options.parsePool ?? sharedParsePool();
  }

  async listMessages(request: BackendListRequest): Promise<ListResult> {
    const matches = compileSearch(request.query, { now: this.#now() });
    const fingerprint = searchFingerprint(request.label, request.query);
    let at = decodePageToken(request.pageToken, fingerprint);
    const candidates = (await this.#entriesFor(request.label)).sort(newestFirst);
    const messages: MessageSummary[] = [];
    for (; at < candidates.length && messages.length < request.maxResults; at++) {
      const entry = candidates[at] as LocalEntry;
      const content = await this.#content(entry);
      const summary = this.#summary(entry, content);
      if (matches(searchDoc(summary, content))) messages.push(summary);
    }
    return { messages, nextPageToken: at < candidates.length ? encodePageToken(fingerprint, at) : undefined };
  }

  async getMessage(id: string): Promise<Message> {
    let entry = await this.#find(id);
    let content: Content;
    try {
      content = await this.#content(entry);
    } catch (err) {
      // A mail client renamed the file (a flag change) since the scan: look once more.
      if (!(err instanceof HostProxyError && isMissing(err.cause))) throw err;
      entry = await this.#find(id);
      content = await this.#content(entry);
    }
    return messageOf(content.parts, { ...this.#meta(entry, content), snippet: content.snippet }, content.text);
  }

  async getThread(threadId: string): Promise<MessageSummary[]> {
    const found: Array<{ summary: MessageSummary; entry: LocalEntry }> = [];
    if (LOCAL_ID.test(threadId)) {
      for (const entry of await this.#all()) {
        const content = await this.#content(entry);
        if (threadIdOf(entry, content) === threadId) found.push({ summary: this.#summary(entry, content), entry });
      }
    }
    if (found.length === 0) throw HostProxyError.notFound(`gmail: thread ${threadId} was not found`);
    found.sort((a, b) => Date.parse(a.summary.date) - Date.parse(b.summary.date) || a.entry.order - b.entry.order);
    return found.map((f) => f.summary);
  }

  #summary(entry: LocalEntry, content: Content): MessageSummary {
    return summaryOf(content.parts.headers, { ...this.#meta(entry, content), snippet: content.snippet });
  }

  #meta(entry: LocalEntry, content: Content) {
    return { id: entry.id, threadId: threadIdOf(entry, content), labels: entryLabels(entry), unread: entry.unread, fallbackDateMs: entry.deliveredMs };
  }

  async #find(id: string): Promise<LocalEntry> {
    const entry = LOCAL_ID.test(id) ? (await this.#all()).find((e) => e.id === id) : undefined;
    if (entry === undefined) throw HostProxyError.notFound(`gmail: message ${id} was not found`);
    return entry;
  }

  async #entriesFor(label: string): Promise<LocalEntry[]> {
    const state = Object.hasOwn(STATE_LABELS, label) ? STATE_LABELS[label] : undefined;
    if (state !== undefined) return (await this.#all()).filter(state);
    const folders = (await io(() => maildirFolders(this.#root))).filter((f) => f.label === label);
    const mboxes = this.#mbox.filter((m) => m.label === label);
    if (folders.length === 0 && mboxes.length === 0) throw HostProxyError.notFound(`gmail: label ${JSON.stringify(label)} does not exist`);
    const entries: LocalEntry[] = [];
    for (const folder of folders) entries.push(...(await io(() => maildirEntries(folder, entries.length))));
    for (const source of mboxes) entries.push(...(await this.#mboxEntries(source, entries.length)));
    return entries;
  }

  async #all(): Promise<LocalEntry[]> {
    const entries: LocalEntry[] = [];
    for (const folder of await io(() => maildirFolders(this.#root))) entries.push(...(await io(() => maildirEntries(folder, entries.length))));
    for (const source of this.#mbox) entries.push(...(await this.#mboxEntries(source, entries.length)));
    return entries;
  }

  async #mboxEntries(source: MboxSource, firstOrder: number): Promise<LocalEntry[]> {
    return io(async () => {
      const version = await mboxVersion(source.path);
      const cached = this.#mboxSplits.get(source.path);
      if (cached?.version === version) return cached.entries.map((e, i) => ({ ...e, order: firstOrder + i }));
      const entries = await mboxEntries(source, { maxBytes: this.#maxMboxBytes, firstOrder });
      this.#mboxSplits.set(source.path, { version, entries });
      return entries;
    });
  }

  #content(entry: LocalEntry): Promise<Content> {
    let content = this.#contents.get(entry.contentKey);
    if (content === undefined) {
      content = io(async () => {
        const { bytes, truncated } = await entry.read(this.#maxMessageBytes);
        return this.#pool.run("mail.content", { bytes, truncated }, "gmail: local message");
      });
      content.catch(() => this.#contents.delete(entry.contentKey));
      if (this.#contents.size >= this.#cacheSize) this.#contents.delete(this.#contents.keys().next().value as string);
      this.#contents.set(entry.contentKey, content);
    }
    return content;
  }
}

function threadIdOf(entry: LocalEntry, content: Content): string {
  return content.threadRoot === undefined ? localId("thread-of", entry.id) : localId("thread", content.threadRoot);
}

function searchDoc(summary: MessageSummary, content: Content): SearchDoc {
  const { from, to, subject, labels, unread } = summary;
  return { from, to, subject, labels, unread, text: content.text, dateMs: Date.parse(summary.date) };
}

/** Runs `fn`; a failure that is not already a host error becomes `io`, without host paths. */
async function io<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof HostProxyError) throw err;
    const detail = err instanceof RangeError ? "a file is larger than the configured limit" : "a file could not be read";
    throw HostProxyError.io(`gmail: local mailbox: ${detail}`, err);
  }
}

function isMissing(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as NodeJS.ErrnoException).code === "ENOENT";
}
