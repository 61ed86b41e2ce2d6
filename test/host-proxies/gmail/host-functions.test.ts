/** gmailHostFunctions: the bridge table, jco-shaped arguments in, WIT records out, bad arguments refused at the edge. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createGmailProxy, GMAIL_HOST_FUNCTION_NAMES, gmailHostFunctions } from "../../../host-proxies/gmail/index.js";
import type { ListResult, Message, MessageSummary } from "../../../host-proxies/gmail/index.js";
import { rejectsWith } from "../../helpers/host-errors.js";
import { maildirUnderTest } from "./_backends.js";
import type { BackendUnderTest } from "./_backends.js";
import { SUBJECTS } from "./_conformance.js";

type HostFunction = (args: unknown[]) => Promise<unknown>;

let under: BackendUnderTest;
let table: Record<string, HostFunction>;
before(async () => {
  under = await maildirUnderTest();
  table = gmailHostFunctions(createGmailProxy(under.backend, { labels: ["INBOX"] }));
});
after(() => under.close());

const fn = (name: string): HostFunction => {
  const f = table[name];
  assert.ok(f !== undefined, name);
  return f;
};

/** A list-request exactly as jco lifts it: every field present, options undefined. */
const record = (extra: Record<string, unknown> = {}) => ({ label: "INBOX", query: undefined, maxResults: undefined, pageToken: undefined, ...extra });

test("one function per WIT import, on a frozen null-prototype table", () => {
  assert.deepEqual(Object.keys(table), [...GMAIL_HOST_FUNCTION_NAMES]);
  for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty"]) assert.equal(table[name], undefined, name);
  assert.ok(Object.isFrozen(table));
});

test("listMessages → getMessage → getThread with jco-shaped values", async () => {
  const listed = (await fn("listMessages")([record({ query: "is:unread", maxResults: 10 })])) as ListResult;
  assert.deepEqual(Object.keys(listed).sort(), ["messages", "nextPageToken"]);
  const summary = listed.messages[0] as MessageSummary;
  assert.equal(summary.subject, SUBJECTS.nodemailer);
  assert.deepEqual(Object.keys(summary).sort(), ["date", "from", "id", "labels", "snippet", "subject", "threadId", "to", "unread"]);
  const message = (await fn("getMessage")([summary.id])) as Message;
  assert.deepEqual(Object.keys(message).sort(), ["attachments", "bcc", "cc", "inReplyTo", "messageId", "references", "replyTo", "sender", "summary", "text"]);
  assert.equal(typeof message.attachments[0]?.size, "bigint", "u64 crosses as bigint");
  assert.deepEqual(((await fn("getThread")([summary.threadId])) as MessageSummary[]).map((m) => m.id), [summary.id]);
});

/** [function, why, args] */
const ARG_ROWS: Array<[string, string, unknown]> = [
  ["listMessages", "no arguments", []],
  ["listMessages", "two arguments", [record(), 1]],
  ["listMessages", "not a record", ["INBOX"]],
  ["listMessages", "null", [null]],
  ["listMessages", "an unknown field", [record({ labelIds: ["INBOX"] })]],
  ["listMessages", "label not a string", [record({ label: 1 })]],
  ["listMessages", "query not a string", [record({ query: ["a"] })]],
  ["listMessages", "maxResults negative", [record({ maxResults: -1 })]],
  ["listMessages", "maxResults a float", [record({ maxResults: 1.5 })]],
  ["listMessages", "maxResults a bigint", [record({ maxResults: 10n })]],
  ["listMessages", "pageToken not a string", [record({ pageToken: 3 })]],
  ["getMessage", "no arguments", []],
  ["getMessage", "id not a string", [42]],
  ["getThread", "threadId an object", [{ id: "x" }]],
];

for (const [name, why, args] of ARG_ROWS) {
  test(`${name}: ${why} is invalid-input`, async () => {
    await rejectsWith(fn(name)(args as unknown[]), { tag: "invalid-input", message: `gmail.${name}` });
  });
}

test("control: the smallest valid calls pass the edge", async () => {
  assert.ok(Array.isArray(((await fn("listMessages")([record()])) as ListResult).messages));
  await rejectsWith(fn("getMessage")(["0123456789abcdef0123456789abcdef"]), { tag: "not-found" });
});
