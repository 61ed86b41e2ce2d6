/**
 * `GmailApiBackend`: the Gmail REST API v1. Lists with `users.messages.list` (`labelIds` is the
 * label, the hard filter; `q` is the ANDed search), then fetches each listed message with
 * `users.messages.get?format=metadata` for its summary; reads one with `format=full` (the
 * `MessagePart` tree, so attachments are never downloaded); threads with `users.threads.get`.
 * Label ids are mapped to names with `users.labels.list` (labels.ts). An HTML body is turned
 * into text in a parse worker under a deadline (../parse-job.ts): the markup is the sender's.
 */
import { sharedParsePool } from "../../_parse/pool.js";
import type { ParsePool } from "../../_parse/pool.js";
import { HostProxyError } from "../../types.js";
import { bodyText } from "../html-text.js";
import { messageOf, summaryOf } from "../shape.js";
import type { MessageMeta } from "../shape.js";
import type { BackendListRequest, ListResult, MailBackend, Message, MessageSummary } from "../types.js";
import { GmailApiClient } from "./client.js";
import type { GmailApiClientOptions } from "./client.js";
import { LabelDirectory } from "./labels.js";
import type { GmailLabel } from "./labels.js";
import { headersOf, partsOf, snippetText } from "./parts.js";
import type { GmailMessage } from "./parts.js";

export interface GmailApiBackendOptions extends GmailApiClientOptions {
  /** The mailbox: `me` (the token's own account, the default) or an address. */
  userId?: string;
  /** Summaries fetched at once while listing. Default 8. */
  concurrency?: number;
  /** How long the label list is trusted. Default 60 s. */
  labelCacheMs?: number;
  now?: () => number;
  /** Where HTML bodies are converted; default the process's shared pool. */
  parsePool?: ParsePool;
}

/** The headers a summary needs, asked for with `metadataHeaders`. */
const SUMMARY_HEADERS = ["From", "To", "Subject", "Date"];

export class GmailApiBackend implements MailBackend {
  readonly #client: GmailApiClient;
  readonly #user: string;
  readonly #concurrency: number;
  readonly #labels: LabelDirectory;
  readonly #pool: ParsePool;

  /** `token` returns the OAuth access token (scope gmail.readonly); called per request. */
  constructor(token: () => Promise<string>, options: GmailApiBackendOptions = {}) {
    this.#client = new GmailApiClient(token, options);
    this.#user = `gmail/v1/users/${encodeURIComponent(options.userId ?? "me")}`;
    this.#concurrency = Math.max(1, options.concurrency ?? 8);
    this.#pool = options.parsePool ?? sharedParsePool();
    const load = async () => {
      const list = await this.#client.get<{ labels?: Array<Partial<GmailLabel>> }>(`${this.#user}/labels`, {}, "labels.list");
      return (list.labels ?? []).filter((l): l is GmailLabel => typeof l.id === "string" && typeof l.name === "string");
    };
    this.#labels = new LabelDirectory(load, { ttlMs: options.labelCacheMs, now: options.now });
  }

  async listMessages(request: BackendListRequest): Promise<ListResult> {
    const labelId = await this.#labels.idFor(request.label);
    if (labelId === undefined) throw HostProxyError.notFound(`gmail: label ${JSON.stringify(request.label)} does not exist`);
    const params = {
      labelIds: labelId,
      q: request.query === "" ? undefined : request.query,
      maxResults: String(request.maxResults),
      pageToken: request.pageToken,
    };
    const list = await this.#client.get<{ messages?: GmailMessage[]; nextPageToken?: string }>(`${this.#user}/messages`, params, "messages.list");
    const ids = (list.messages ?? []).map((m) => m.id).filter((id): id is string => typeof id === "string");
    // A message deleted between the list and the get is left out, as if listed a moment later.
    const found = await mapLimit(ids, this.#concurrency, (id) => this.#summary(id).catch(skipNotFound));
    const messages = found.filter((m): m is MessageSummary => m !== undefined);
    return { messages, nextPageToken: list.nextPageToken === "" ? undefined : list.nextPageToken };
  }

  async getMessage(id: string): Promise<Message> {
    const message = await this.#client.get<GmailMessage>(`${this.#user}/messages/${segment(id)}`, { format: "full" }, `message ${id}`);
    const parts = partsOf(message.payload);
    // Plain text only needs its line ends normalised (linear); markup goes to a worker.
    const text = parts.html === undefined ? bodyText(parts.plain, undefined) : await this.#pool.run("mail.text", { plain: parts.plain, html: parts.html }, `gmail: message ${id}`);
    return messageOf(parts, await this.#meta(message, id), text);
  }

  async getThread(threadId: string): Promise<MessageSummary[]> {
    const path = `${this.#user}/threads/${segment(threadId)}`;
    const thread = await this.#client.get<{ messages?: GmailMessage[] }>(path, { format: "metadata", metadataHeaders: SUMMARY_HEADERS }, `thread ${threadId}`);
    const messages = thread.messages ?? [];
    if (messages.length === 0) throw HostProxyError.notFound(`gmail: thread ${threadId} was not found`);
    const summaries = await Promise.all(messages.map(async (m) => this.#toSummary(m, m.id ?? "")));
    return summaries
      .map((summary, i) => ({ summary, at: Number(messages[i]?.internalDate ?? 0) }))
      .sort((a, b) => a.at - b.at)
      .map((s) => s.summary);
  }

  async #summary(id: string): Promise<MessageSummary> {
    const path = `${this.#user}/messages/${segment(id)}`;
    const message = await this.#client.get<GmailMessage>(path, { format: "metadata", metadataHeaders: SUMMARY_HEADERS }, `message ${id}`);
    return this.#toSummary(message, id);
  }

  async #toSummary(message: GmailMessage, id: string): Promise<MessageSummary> {
    const meta = await this.#meta(message, id);
    return summaryOf(headersOf(message.payload), { ...meta, snippet: meta.snippet ?? "" });
  }

  async #meta(message: GmailMessage, id: string): Promise<MessageMeta> {
    const labelIds = message.labelIds ?? [];
    const internal = Number(message.internalDate);
    return {
      id: message.id ?? id,
      threadId: message.threadId ?? "",
      labels: await this.#labels.namesFor(labelIds),
      unread: labelIds.includes("UNREAD"),
      snippet: snippetText(message.snippet),
      fallbackDateMs: Number.isFinite(internal) ? internal : undefined,
    };
  }
}

/**
 * One path segment. Gmail ids are hex; anything beyond letters, digits, `_` and `-` is refused,
 * since URL parsing treats `..` and even `%2E%2E` as a step up to another endpoint.
 */
function segment(id: string): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) throw HostProxyError.invalidInput(`gmail: ${JSON.stringify(id.slice(0, 64))} is not a Gmail id`);
  return id;
}

function skipNotFound(err: unknown): undefined {
  if (err instanceof HostProxyError && err.hostError.tag === "not-found") return undefined;
  throw err;
}

/** `fn` over `items` with at most `limit` running at once, results in order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
