/** createGmailProxy's own checks: configuration, and failures that are not the backend's host errors. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { InvalidInputError } from "../../../runtime/errors.js";
import { createGmailProxy } from "../../../host-proxies/gmail/index.js";
import type { ListResult, MailBackend, MessageSummary } from "../../../host-proxies/gmail/index.js";
import { rejectsWith } from "../../helpers/host-errors.js";

const summary = (labels: string[]): MessageSummary => ({ id: "a1", threadId: "t1", from: "", to: "", subject: "s", date: "2024-01-01T00:00:00Z", snippet: "", labels, unread: false });

function backend(overrides: Partial<MailBackend> = {}): MailBackend {
  return {
    listMessages: async (): Promise<ListResult> => ({ messages: [summary(["INBOX"]), summary(["Secret"])], nextPageToken: undefined }),
    getMessage: async () => ({ summary: summary(["INBOX"]), text: "", attachments: [], cc: "", bcc: "", replyTo: "", sender: "", messageId: "", inReplyTo: undefined, references: [] }),
    getThread: async () => [summary(["INBOX"])],
    ...overrides,
  };
}

const list = { label: "INBOX", query: undefined, maxResults: undefined, pageToken: undefined };

test("configuration: no labels, an empty pattern or an open grant query is refused; control", () => {
  assert.throws(() => createGmailProxy(backend(), { labels: [] }), InvalidInputError);
  assert.throws(() => createGmailProxy(backend(), { labels: [""] }), InvalidInputError);
  assert.throws(() => createGmailProxy(backend(), { labels: ["INBOX"], queries: ["is:unread) OR (in:anywhere"] }), InvalidInputError);
  assert.ok(createGmailProxy(backend(), { labels: ["INBOX"], queries: ["newer_than:30d"] }));
});

test("a listed message that is not under a granted label is dropped, whatever the backend says", async () => {
  const { messages } = await createGmailProxy(backend(), { labels: ["INBOX"] }).listMessages(list);
  assert.deepEqual(messages.map((m) => m.labels), [["INBOX"]]);
});

test("the backend gets the ANDed query and a bounded page", async () => {
  let seen: unknown;
  const proxy = createGmailProxy(backend({ listMessages: async (r) => ((seen = r), { messages: [], nextPageToken: undefined }) }), { labels: ["INBOX"], queries: ["a", "b"] });
  await proxy.listMessages({ ...list, query: "c" });
  assert.deepEqual(seen, { label: "INBOX", query: "(a) (b) (c)", maxResults: 50, pageToken: undefined });
});

test("a backend that throws something else is io; an allowLabel that throws is io", async () => {
  const broken = createGmailProxy(backend({ getMessage: async () => Promise.reject(new TypeError("bug")) }), { labels: ["INBOX"] });
  await rejectsWith(broken.getMessage("a1"), { tag: "io" });
  const throwing = createGmailProxy(backend(), { labels: ["INBOX"], allowLabel: () => { throw new Error("policy down"); } });
  await rejectsWith(throwing.listMessages(list), { tag: "io" });
  assert.equal((await createGmailProxy(backend(), { labels: ["INBOX"], allowLabel: () => true }).getMessage("a1")).summary.id, "a1");
});
