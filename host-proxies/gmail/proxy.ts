/**
 * The gmail host proxy of one instance: a `MailBackend` seen through a grant fixed at creation.
 * - `listMessages`: the label asked for must be granted; every layer's query is ANDed onto the
 *   user's (`(q1) (q2) (user)`, query-guard.ts) and the label goes to the backend separately as
 *   the hard filter, so no search can reach outside it.
 * - `getMessage`: an id says nothing about where a message lives, so the message is fetched
 *   first and its labels are checked after; with no granted label the call is denied and
 *   nothing of the message is returned.
 * - `getThread`: only the messages under a granted label.
 * A message is visible when a label that places it (not a state label like `UNREAD`, see
 * labels.ts) is granted. Everything returned shows only the granted labels of a message (label
 * names are mail content too). Grant queries narrow searches only; a message fetched by id is
 * held to labels.
 */
import { InvalidInputError } from "../../runtime/errors.js";
import { HostProxyError } from "../types.js";
import { isStateLabel, labelAllowed } from "./labels.js";
import { andQueries, checkQueryPiece } from "./query-guard.js";
import { GMAIL_DENIAL_REASONS, gmailDenied } from "./reasons.js";
import type { ListRequest, ListResult, MailBackend, Message, MessageSummary } from "./types.js";

export interface GmailProxyOptions {
  /** Granted label patterns: names or globs (`INBOX`, `Work/*`). At least one. */
  labels: readonly string[];
  /** Every policy layer's query; each is ANDed onto every search. */
  queries?: readonly string[];
  /** An extra check per label from the policy (e.g. a step's narrower grant); false refuses it. */
  allowLabel?: (label: string) => boolean;
  /** Page size when a request names none. Default 50. */
  defaultMaxResults?: number;
  /** Told what a read could not read (an unreadable Date header), so the caller can pass it on. */
  onWarning?: ((warning: { messageId: string; reason: string }) => void) | undefined;
}

/** `clawhive:host/gmail` for one instance. Methods throw `HostProxyError` only. */
export interface GmailProxy {
  listMessages(request: ListRequest): Promise<ListResult>;
  getMessage(id: string): Promise<Message>;
  getThread(threadId: string): Promise<MessageSummary[]>;
}

export const MAX_RESULTS_LIMIT = 500;
const ID = /^[A-Za-z0-9_-]{1,128}$/;
const MAX_LABEL_LENGTH = 225;
const MAX_PAGE_TOKEN_LENGTH = 2048;

/** Throws `InvalidInputError` for an empty label list or a query that is not a closed group. */
export function createGmailProxy(backend: MailBackend, options: GmailProxyOptions): GmailProxy {
  const patterns = Object.freeze([...options.labels]);
  if (patterns.length === 0 || patterns.some((p) => typeof p !== "string" || p === "")) {
    throw new InvalidInputError("createGmailProxy: labels: expected at least one non-empty label pattern", { field: "labels" });
  }
  const queries = Object.freeze([...(options.queries ?? [])]);
  for (const [i, query] of queries.entries()) {
    try {
      checkQueryPiece(query, `grant query ${i}`);
    } catch (err) {
      throw new InvalidInputError(`createGmailProxy: queries[${i}]: ${(err as Error).message}`, { field: `queries[${i}]`, cause: err });
    }
  }
  const defaultMax = options.defaultMaxResults ?? 50;
  return new GrantedGmailProxy(backend, { patterns, queries, allowLabel: options.allowLabel, defaultMax, onWarning: options.onWarning });
}

class GrantedGmailProxy implements GmailProxy {
  readonly #backend: MailBackend;
  readonly #patterns: readonly string[];
  readonly #queries: readonly string[];
  readonly #allowLabel: ((label: string) => boolean) | undefined;
  readonly #defaultMax: number;
  readonly #onWarning: GmailProxyOptions["onWarning"];

  constructor(backend: MailBackend, grant: { patterns: readonly string[]; queries: readonly string[]; allowLabel: ((label: string) => boolean) | undefined; defaultMax: number; onWarning: GmailProxyOptions["onWarning"] }) {
    this.#onWarning = grant.onWarning;
    this.#backend = backend;
    this.#patterns = grant.patterns;
    this.#queries = grant.queries;
    this.#allowLabel = grant.allowLabel;
    this.#defaultMax = grant.defaultMax;
  }

  async listMessages(request: ListRequest): Promise<ListResult> {
    const { label, pageToken } = request;
    if (label === "" || label.length > MAX_LABEL_LENGTH) throw HostProxyError.invalidInput(`gmail: label: expected 1 to ${MAX_LABEL_LENGTH} characters`);
    const maxResults = request.maxResults ?? this.#defaultMax;
    if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > MAX_RESULTS_LIMIT) {
      throw HostProxyError.invalidInput(`gmail: maxResults: expected 1 to ${MAX_RESULTS_LIMIT}, got ${maxResults}`);
    }
    if (pageToken !== undefined && pageToken.length > MAX_PAGE_TOKEN_LENGTH) throw HostProxyError.invalidInput("gmail: pageToken: too long");
    if (!this.#granted(label)) throw gmailDenied(GMAIL_DENIAL_REASONS.labelNotGranted, `gmail: label ${JSON.stringify(label)} is not granted`);
    const query = andQueries([...this.#queries.map((q, i) => ({ query: q, what: `grant query ${i}` })), { query: request.query ?? "", what: "query" }]);
    const result = await guard(() => this.#backend.listMessages({ label, query, maxResults, pageToken }));
    // The backend filtered by the label already; a message that lost it meanwhile is dropped here.
    const messages = result.messages.map((m) => this.#narrow(m)).filter((m): m is MessageSummary => m !== undefined);
    return { messages: messages.slice(0, maxResults), nextPageToken: result.nextPageToken };
  }

  async getMessage(id: string): Promise<Message> {
    checkId(id, "id");
    const message = await guard(() => this.#backend.getMessage(id));
    const summary = this.#narrow(message.summary);
    // Checked after fetching: say which id, never what the message holds or where it is.
    if (summary === undefined) throw gmailDenied(GMAIL_DENIAL_REASONS.labelNotGranted, `gmail: message ${id}: none of its labels is granted`);
    return { ...message, summary };
  }

  async getThread(threadId: string): Promise<MessageSummary[]> {
    checkId(threadId, "threadId");
    const summaries = await guard(() => this.#backend.getThread(threadId));
    const visible = summaries.map((m) => this.#narrow(m)).filter((m): m is MessageSummary => m !== undefined);
    if (visible.length === 0) throw gmailDenied(GMAIL_DENIAL_REASONS.labelNotGranted, `gmail: thread ${threadId}: none of its messages is under a granted label`);
    return visible;
  }

  /** The summary with only its granted labels; undefined unless a label that places it is granted. */
  #narrow(summary: MessageSummary): MessageSummary | undefined {
    const { dateNote, ...shown } = summary;
    const labels = shown.labels.filter((l) => this.#granted(l));
    if (!labels.some((l) => !isStateLabel(l))) return undefined;
    // Told only for a message the grant shows: a warning says nothing about hidden mail.
    if (dateNote !== undefined) this.#onWarning?.({ messageId: shown.id, reason: dateNote });
    return { ...shown, labels };
  }

  #granted(label: string): boolean {
    if (!labelAllowed(label, this.#patterns)) return false;
    if (this.#allowLabel === undefined) return true;
    try {
      return this.#allowLabel(label) === true;
    } catch (err) {
      throw HostProxyError.io("gmail: the policy's label check failed", err);
    }
  }
}

function checkId(id: string, field: string): void {
  if (!ID.test(id)) throw HostProxyError.invalidInput(`gmail: ${field}: expected 1 to 128 letters, digits, _ or -`);
}

/** Backend failures that are not host errors become `io` (a bug must not reach the guest as a trap). */
async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof HostProxyError) throw err;
    throw HostProxyError.io("gmail: the mail backend failed", err);
  }
}
