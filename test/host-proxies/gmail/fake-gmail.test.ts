/**
 * The fake Gmail server checks itself against Google's discovery document: these tests show
 * the checks bite (each refusal beside a control), so a fake that drifted from Google's shapes
 * would fail the backend suites instead of passing them.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { TOKEN } from "./_backends.js";
import { corpus, NOW } from "./_corpus.js";
import { checkParams, checkSchema, loadDiscovery, route } from "./_fake-gmail/discovery.js";
import { buildMailbox, messageJson } from "./_fake-gmail/mailbox.js";
import type { MessageFormat } from "./_fake-gmail/mailbox.js";
import { startFakeGmail } from "./_fake-gmail/server.js";

const d = loadDiscovery();

test("the discovery document is Google's Gmail v1", () => {
  assert.equal(d.rootUrl, "https://gmail.googleapis.com/");
  for (const name of ["Message", "MessagePart", "MessagePartHeader", "MessagePartBody", "ListMessagesResponse", "Thread", "ListLabelsResponse", "Label"]) {
    assert.ok(d.schemas[name]?.properties !== undefined, name);
  }
});

/** [http method, path, method id or undefined] */
const ROUTE_ROWS: Array<[string, string, string | undefined]> = [
  ["GET", "/gmail/v1/users/me/messages", "gmail.users.messages.list"],
  ["GET", "/gmail/v1/users/me/messages/18c0ffee", "gmail.users.messages.get"],
  ["GET", "/gmail/v1/users/me/threads/18c0ffee", "gmail.users.threads.get"],
  ["GET", "/gmail/v1/users/me/labels", "gmail.users.labels.list"],
  ["DELETE", "/gmail/v1/users/me/messages/18c0ffee", "gmail.users.messages.delete"],
  ["GET", "/gmail/v1/users/me/messages/18c0ffee/extra", undefined],
  ["GET", "/gmail/v2/users/me/messages", undefined],
  ["PATCH", "/gmail/v1/users/me/messages", undefined],
];

for (const [method, path, id] of ROUTE_ROWS) {
  test(`route ${method} ${path} → ${id ?? "no method"}`, () => {
    assert.equal(route(d, method, path)?.method.id, id);
  });
}

/** [method id, query string, valid] */
const PARAM_ROWS: Array<[string, string, boolean]> = [
  ["gmail.users.messages.list", "labelIds=INBOX&labelIds=Label_1&q=is%3Aunread&maxResults=10&pageToken=p1", true],
  ["gmail.users.messages.list", "bogus=1", false],
  ["gmail.users.messages.list", "maxResults=ten", false],
  ["gmail.users.messages.list", "maxResults=-1", false],
  ["gmail.users.messages.list", "maxResults=4294967296", false],
  ["gmail.users.messages.list", "includeSpamTrash=yes", false],
  ["gmail.users.messages.list", "includeSpamTrash=false", true],
  ["gmail.users.messages.list", "q=a&q=b", false],
  ["gmail.users.messages.list", "format=full", false],
  ["gmail.users.messages.get", "format=full", true],
  ["gmail.users.messages.get", "format=FULL", false],
  ["gmail.users.messages.get", "format=metadata&metadataHeaders=From&metadataHeaders=Subject", true],
  ["gmail.users.messages.get", "prettyPrint=false&alt=json&fields=id", true],
  ["gmail.users.messages.get", "alt=xml", false],
  ["gmail.users.threads.get", "format=raw", false],
  ["gmail.users.threads.get", "format=minimal", true],
];

for (const [id, query, valid] of PARAM_ROWS) {
  test(`params ${id}?${query}: ${valid ? "valid" : "refused"}`, () => {
    const method = d.methods.find((m) => m.id === id);
    assert.ok(method !== undefined);
    const problems = checkParams(d, method, new URLSearchParams(query));
    assert.equal(problems.length === 0, valid, problems.join("; "));
  });
}

const good = () => ({
  id: "18c0ffee",
  threadId: "18c0ffee",
  labelIds: ["INBOX"],
  snippet: "hi",
  sizeEstimate: 10,
  historyId: "1",
  internalDate: "1476358788000",
  payload: { partId: "", mimeType: "multipart/mixed", filename: "", headers: [{ name: "To", value: "a@b" }], body: { size: 0 }, parts: [{ partId: "0", mimeType: "text/plain", filename: "", body: { size: 2, data: "aGk" } }] },
});

/** [why, mutate a valid Message, still valid] */
const SCHEMA_ROWS: Array<[string, (m: ReturnType<typeof good>) => unknown, boolean]> = [
  ["control: a valid Message", (m) => m, true],
  ["an unknown top-level field", (m) => ({ ...m, labels: ["INBOX"] }), false],
  ["an unknown field deep in a part body", (m) => ({ ...m, payload: { ...m.payload, parts: [{ ...m.payload.parts[0], body: { size: 2, content: "hi" } }] } }), false],
  ["an unknown header field", (m) => ({ ...m, payload: { ...m.payload, headers: [{ name: "To", value: "a@b", raw: "To: a@b" }] } }), false],
  ["int64 sent as a number", (m) => ({ ...m, internalDate: 1476358788000 }), false],
  ["int32 sent as a string", (m) => ({ ...m, sizeEstimate: "10" }), false],
  ["labelIds not an array", (m) => ({ ...m, labelIds: "INBOX" }), false],
  ["null for a field", (m) => ({ ...m, snippet: null }), false],
  ["bytes that are not base64", (m) => ({ ...m, raw: "not base64!" }), false],
  ["control: bytes in base64url", (m) => ({ ...m, raw: "SGVsbG8_-w" }), true],
];

for (const [why, mutate, valid] of SCHEMA_ROWS) {
  test(`schema Message: ${why}`, () => {
    const problems = checkSchema(d, "Message", mutate(good()));
    assert.equal(problems.length === 0, valid, problems.join("; "));
  });
}

test("schema: unknown fields in list and label responses are caught too", () => {
  assert.deepEqual(checkSchema(d, "ListMessagesResponse", { messages: [{ id: "a", threadId: "a" }], resultSizeEstimate: 1 }), []);
  assert.equal(checkSchema(d, "ListMessagesResponse", { messages: [], total: 0 }).length, 1);
  assert.deepEqual(checkSchema(d, "ListLabelsResponse", { labels: [{ id: "INBOX", name: "INBOX", type: "system" }] }), []);
  assert.equal(checkSchema(d, "ListLabelsResponse", { labels: [{ id: "INBOX", name: "INBOX", type: "builtin" }] }).length, 1);
});

test("every message the fake can serve, in every format, fits the schema", () => {
  const formats: MessageFormat[] = ["full", "metadata", "minimal", "raw"];
  for (const m of buildMailbox(corpus()).messages) {
    for (const format of formats) assert.deepEqual(checkSchema(d, "Message", messageJson(m, format, ["From", "Subject"])), [], `${m.source.name} ${format}`);
  }
});

async function fake(t: TestContext) {
  const server = await startFakeGmail(corpus(), { token: TOKEN, now: NOW });
  t.after(() => server.close());
  return server;
}

test("over HTTP: an unknown parameter is 400 like Google; control: a known one", async (t) => {
  const server = await fake(t);
  const get = (query: string) => fetch(new URL(`gmail/v1/users/me/labels?${query}`, server.url), { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal((await get("bogus=1")).status, 400);
  assert.equal((await get("prettyPrint=false")).status, 200);
  assert.equal(server.rejected.length, 1);
});

test("over HTTP: a wrong or missing token is 401 with WWW-Authenticate; control: the right one", async (t) => {
  const server = await fake(t);
  const url = new URL("gmail/v1/users/me/labels", server.url);
  for (const headers of [{}, { authorization: "Bearer nope" }, { authorization: TOKEN }] as Array<Record<string, string>>) {
    const response = await fetch(url, { headers });
    assert.equal(response.status, 401);
    assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer /);
  }
  assert.equal((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200);
});
