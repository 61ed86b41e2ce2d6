/** GmailApiBackend against the discovery-checked fake: the shared suites, then the API's own edges. */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { InvalidInputError } from "../../../runtime/errors.js";
import { createGmailProxy, GmailApiBackend } from "../../../host-proxies/gmail/index.js";
import { rejectsWith } from "../../helpers/host-errors.js";
import { gmailApiUnderTest, TOKEN } from "./_backends.js";
import { list, mailBackendConformance, SUBJECTS } from "./_conformance.js";
import { gmailProxyConformance } from "./_proxy-cases.js";

mailBackendConformance("GmailApiBackend", () => gmailApiUnderTest());
gmailProxyConformance("GmailApiBackend", () => gmailApiUnderTest());

async function setup(t: TestContext) {
  const under = await gmailApiUnderTest();
  t.after(() => under.close());
  return under;
}

const listCalls = (under: Awaited<ReturnType<typeof gmailApiUnderTest>>) => under.fake.requests.filter((r) => r.methodId === "gmail.users.messages.list");

test("the label travels as labelIds (the hard filter) and the queries wrapped and ANDed in q", async (t) => {
  const under = await setup(t);
  const proxy = createGmailProxy(under.backend, { labels: ["INBOX"], queries: ["newer_than:3650d"] });
  const { messages } = await proxy.listMessages({ label: "INBOX", query: "in:anywhere", maxResults: undefined, pageToken: undefined });
  assert.deepEqual(messages.map((m) => m.subject), [SUBJECTS.nodemailer, SUBJECTS.longLinks, SUBJECTS.forward, SUBJECTS.bilingual]);
  const sent = listCalls(under).at(-1)?.query;
  assert.deepEqual(sent?.getAll("labelIds"), ["INBOX"]);
  assert.equal(sent?.get("q"), "(newer_than:3650d) (in:anywhere)");
  // Control: without labelIds the same q reaches every label in the (fake) mailbox.
  const url = new URL("gmail/v1/users/me/messages?q=in%3Aanywhere", under.fake.url);
  const everything = (await (await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { messages: unknown[] };
  assert.equal(everything.messages.length, under.fake.mailbox.messages.length);
});

test("user labels are asked for by id and shown by name", async (t) => {
  const under = await setup(t);
  const { messages } = await list(under.backend, "Work/Reports");
  const id = under.fake.mailbox.labels.find((l) => l.name === "Work/Reports")?.id;
  assert.match(id ?? "", /^Label_\d+$/);
  assert.deepEqual(listCalls(under).at(-1)?.query.getAll("labelIds"), [id]);
  assert.deepEqual(messages.map((m) => m.labels), [["Work/Reports"]]);
});

test("every request carries the bearer token in the header, never in the URL", async (t) => {
  const under = await setup(t);
  await list(under.backend, "INBOX");
  assert.ok(under.fake.requests.length > 1);
  for (const r of under.fake.requests) {
    assert.equal(r.authorization, `Bearer ${TOKEN}`);
    assert.ok(!r.query.has("access_token") && !r.query.has("oauth_token") && !r.query.has("key"));
  }
});

test("a rejected token is denied token-rejected and never echoed; control: the right token", async (t) => {
  const under = await setup(t);
  const wrong = new GmailApiBackend(async () => "ya29.wrong-token", { baseUrl: under.fake.url });
  const err = await rejectsWith(list(wrong, "INBOX"), { tag: "denied", reason: "token-rejected", capability: "gmail.read" });
  assert.ok(!JSON.stringify({ m: err.message, h: err.hostError }).includes("ya29"));
  assert.equal((await list(under.backend, "INBOX")).messages.length, 4);
});

test("a token that cannot be read or is not a bearer token is io, before any request", async (t) => {
  const under = await setup(t);
  const before = under.fake.requests.length;
  const rows: Array<() => Promise<string>> = [async () => Promise.reject(new Error("vault sealed")), async () => "", async () => "a b", async () => "tok\r\nX-Evil: 1"];
  for (const token of rows) await rejectsWith(list(new GmailApiBackend(token, { baseUrl: under.fake.url }), "INBOX"), { tag: "io", message: "token" });
  assert.equal(under.fake.requests.length, before);
});

test("a secret store that never answers times out as io, before any request", async (t) => {
  const under = await setup(t);
  const stuck = new GmailApiBackend(() => new Promise<string>(() => undefined), { baseUrl: under.fake.url, timeoutMs: 100 });
  await rejectsWith(list(stuck, "INBOX"), { tag: "io", message: "100 ms" });
  assert.equal(under.fake.requests.length, 0);
});

test("a slow API times out as io; control: the same call without the delay", async (t) => {
  const under = await setup(t);
  const slow = new GmailApiBackend(async () => TOKEN, { baseUrl: under.fake.url, timeoutMs: 100 });
  under.fake.delayMs = 400;
  await rejectsWith(list(slow, "INBOX"), { tag: "io", message: "did not answer within 100 ms" });
  under.fake.delayMs = 0;
  assert.equal((await list(slow, "INBOX")).messages.length, 4);
});

/** [status, Google error reason, expected] */
const STATUS_ROWS: Array<[number, string, { tag: "denied" | "not-found" | "invalid-input" | "io"; reason?: string }]> = [
  [401, "authError", { tag: "denied", reason: "token-rejected" }],
  [403, "insufficientPermissions", { tag: "denied", reason: "token-rejected" }],
  [403, "rateLimitExceeded", { tag: "io" }],
  [429, "rateLimitExceeded", { tag: "io" }],
  [404, "notFound", { tag: "not-found" }],
  [400, "invalidArgument", { tag: "invalid-input" }],
  [500, "backendError", { tag: "io" }],
  [503, "backendError", { tag: "io" }],
];

for (const [status, reason, expected] of STATUS_ROWS) {
  test(`Gmail ${status} ${reason} → ${expected.tag}${expected.reason === undefined ? "" : ` ${expected.reason}`}`, async () => {
    const body = JSON.stringify({ error: { code: status, message: `because ${reason}`, errors: [{ reason }] } });
    const stub: typeof fetch = async () => new Response(body, { status, headers: { "content-type": "application/json" } });
    const backend = new GmailApiBackend(async () => TOKEN, { fetch: stub });
    await rejectsWith(backend.getMessage("18c0ffee"), expected);
  });
}

test("redirects are refused, so the token cannot follow one; the target sees nothing", async (t) => {
  let targetHits = 0;
  const target = createServer((_q, res) => ((targetHits += 1), res.end("{}")));
  const redirector = createServer((_q, res) => res.writeHead(302, { location: `http://127.0.0.1:${(target.address() as AddressInfo).port}/` }).end());
  for (const s of [target, redirector]) {
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    t.after(() => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r()))));
  }
  const backend = new GmailApiBackend(async () => TOKEN, { baseUrl: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/` });
  await rejectsWith(backend.getMessage("18c0ffee"), { tag: "io" });
  assert.equal(targetHits, 0);
});

test("an answer larger than maxResponseBytes is io; control: a roomy limit", async (t) => {
  const under = await setup(t);
  const tight = new GmailApiBackend(async () => TOKEN, { baseUrl: under.fake.url, maxResponseBytes: 200 });
  await rejectsWith(list(tight, "INBOX"), { tag: "io", message: "larger than 200 bytes" });
  const roomy = new GmailApiBackend(async () => TOKEN, { baseUrl: under.fake.url, maxResponseBytes: 1 << 20 });
  assert.equal((await list(roomy, "INBOX")).messages.length, 4);
});

/** [base URL, accepted] */
const BASE_URL_ROWS: Array<[string, boolean]> = [
  ["https://gmail.googleapis.com/", true],
  ["https://proxy.example.com/google", true],
  ["http://127.0.0.1:8080/", true],
  ["http://[::1]:8080/", true],
  ["http://gmail.googleapis.com/", false],
  ["http://10.0.0.5/", false],
  ["https://user:pass@gmail.googleapis.com/", false],
  ["https://gmail.googleapis.com/?key=1", false],
  ["not a url", false],
];

for (const [baseUrl, accepted] of BASE_URL_ROWS) {
  test(`baseUrl ${baseUrl}: ${accepted ? "accepted" : "refused (the token would leave https)"}`, () => {
    const make = () => new GmailApiBackend(async () => TOKEN, { baseUrl });
    if (accepted) assert.ok(make() instanceof GmailApiBackend);
    else assert.throws(make, InvalidInputError);
  });
}

test("an id used directly on the backend stays one path segment", async (t) => {
  const under = await setup(t);
  for (const id of ["..", "%2E%2E", "../labels", "a/b", "x?format=raw", ""]) {
    await rejectsWith(under.backend.getMessage(id), { tag: "invalid-input" });
    await rejectsWith(under.backend.getThread(id), { tag: "invalid-input" });
  }
  assert.deepEqual(under.fake.requests, []);
  await rejectsWith(under.backend.getMessage("18c0ffee"), { tag: "not-found" });
});
