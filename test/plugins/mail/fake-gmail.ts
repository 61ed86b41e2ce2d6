/**
 * An in-memory stand-in for `clawhive:host/gmail`, failing the way the guest sees real host
 * calls fail (a `ComponentError`-like `Error` whose `payload` is the `host-error` variant), and
 * enforcing a label grant the way the gmail proxy does.
 */
import { FakeComponentError } from "../files/fake-host.js";
import type { HostError, HostImports } from "../files/fake-host.js";
import type { ListRequest, Message, MessageSummary } from "../../../host-proxies/gmail/types.js";

// The WIT records from the host side, so the fake cannot drift from what the proxy returns.
export type FakeSummary = MessageSummary;
export type FakeMessage = Omit<Message, "inReplyTo"> & { inReplyTo?: string };
export type FakeListRequest = ListRequest;

export type GmailFunction = "listMessages" | "getMessage" | "getThread";

export interface FakeGmailOptions {
  messages?: FakeMessage[];
  /** Labels the grant allows (default INBOX and Work). */
  labels?: string[];
  /** Like a local Maildir: the search query is ignored, every message of the label is listed. */
  ignoreQuery?: boolean;
  /** Returned as the list's next page token. */
  nextPageToken?: string;
  /** getThread returns messages in this order instead of oldest first. */
  threadOrder?: "oldest-first" | "reversed";
}

/** A message with defaults, for tables. */
export function message(id: string, fields: Partial<FakeSummary> & { text?: string; threadId?: string } = {}): FakeMessage {
  const { text = `body of ${id}`, ...summary } = fields;
  return {
    summary: {
      id,
      threadId: summary.threadId ?? `t-${id}`,
      from: "Alice <alice@example.com>",
      to: "bob@example.com",
      subject: `subject ${id}`,
      date: "2026-11-20T10:00:00Z",
      snippet: `snippet ${id}`,
      labels: ["INBOX"],
      unread: true,
      ...summary,
    },
    text,
    attachments: [],
    cc: "",
    bcc: "",
    replyTo: "",
    sender: "",
    messageId: `<${id}@mail.example.com>`,
    references: [],
  };
}

export class FakeGmail {
  /** Every host call, in order. */
  readonly calls: { fn: GmailFunction; arg: unknown }[] = [];
  readonly #messages: FakeMessage[];
  readonly #labels: Set<string>;
  readonly #options: FakeGmailOptions;
  readonly #faults = new Map<GmailFunction, (arg: unknown) => unknown>();

  constructor(options: FakeGmailOptions = {}) {
    this.#messages = options.messages ?? [];
    this.#labels = new Set(options.labels ?? ["INBOX", "Work"]);
    this.#options = options;
  }

  /** Replaces one host function, e.g. to throw something a real host never should. */
  fault(fn: GmailFunction, impl: (arg: unknown) => unknown): void {
    this.#faults.set(fn, impl);
  }

  imports(): HostImports {
    const gmail = {
      listMessages: (request: FakeListRequest) => this.#call("listMessages", request, () => this.#list(request)),
      getMessage: (id: string) => this.#call("getMessage", id, () => this.#get(id)),
      getThread: (threadId: string) => this.#call("getThread", threadId, () => this.#thread(threadId)),
    };
    // The plugin's send tool imports the mail proxy too; these tests read only, so a send is refused.
    const mail = { send: () => { throw { tag: "denied", val: { capability: "mail.send", reason: "not-granted", message: "no mail proxy in this test" } }; } };
    return { "clawhive:host/gmail@0.1.1": gmail, "clawhive:host/mail@0.1.1": mail, "clawhive:host/types@0.1.1": {} };
  }

  #call(fn: GmailFunction, arg: unknown, effect: () => unknown): unknown {
    this.calls.push({ fn, arg });
    const fault = this.#faults.get(fn);
    return fault === undefined ? effect() : fault(arg);
  }

  #list(request: FakeListRequest): { messages: FakeSummary[]; nextPageToken?: string } {
    if (!this.#labels.has(request.label)) deny(`label ${JSON.stringify(request.label)} is not granted`);
    const unreadOnly = !this.#options.ignoreQuery && (request.query ?? "").includes("is:unread");
    const messages = this.#messages
      .map((m) => m.summary)
      .filter((s) => s.labels.includes(request.label) && (!unreadOnly || s.unread))
      .slice(0, request.maxResults ?? 100)
      .map((s) => ({ ...s, labels: [...s.labels] }));
    return { messages, ...(this.#options.nextPageToken === undefined ? {} : { nextPageToken: this.#options.nextPageToken }) };
  }

  #get(id: string): FakeMessage {
    const found = this.#messages.find((m) => m.summary.id === id);
    if (found === undefined) fail({ tag: "not-found", val: `message ${id}: not found` });
    // Checked after fetching, as the gmail proxy does for a message fetched by id.
    if (!found.summary.labels.some((l) => this.#labels.has(l))) deny(`message ${id} is under no granted label`);
    return structuredClone(found);
  }

  #thread(threadId: string): FakeSummary[] {
    const all = this.#messages.filter((m) => m.summary.threadId === threadId);
    if (all.length === 0) fail({ tag: "not-found", val: `thread ${threadId}: not found` });
    const visible = all.filter((m) => m.summary.labels.some((l) => this.#labels.has(l))).map((m) => structuredClone(m.summary));
    return this.#options.threadOrder === "reversed" ? visible.reverse() : visible;
  }
}

function fail(error: HostError): never {
  throw new FakeComponentError(error);
}

function deny(message: string): never {
  fail({ tag: "denied", val: { capability: "gmail.read", reason: "label-not-granted", message } });
}
