import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { callErr, callOk, repoRoot } from "../files/harness.js";
import { message } from "./fake-gmail.js";
import { mailPlugin } from "./harness.js";

test("describe: three read-only tools and the Guarded send, as plugin.json declares them", async () => {
  const { tools } = await mailPlugin();
  const manifest = JSON.parse(await readFile(join(repoRoot(), "plugins/mail/plugin.json"), "utf8")) as {
    capabilities: string[];
    tools: Record<string, { risk: string }>;
  };
  const described = tools.describe();
  assert.deepEqual(described.map((d) => d.name).sort(), Object.keys(manifest.tools).sort());
  for (const d of described) {
    assert.equal(d.risk, manifest.tools[d.name]?.risk, d.name);
    assert.equal(d.risk, d.name === "send" ? "guarded" : "safe");
    assert.deepEqual(d.capabilities, [d.name === "send" ? "mail.send" : "gmail.read"]);
    assert.ok(d.capabilities.every((c) => manifest.capabilities.includes(c)));
    assert.equal((JSON.parse(d.inputSchema) as { type: string }).type, "object");
  }
});

const INBOX = [
  message("m1", { subject: "Lunch?", unread: true }),
  message("m2", { subject: "Read already", unread: false }),
  message("m3", { subject: "Invoice", unread: true, labels: ["INBOX", "Work"], from: '"Doe, Jane" <jane@example.com>' }),
  message("w1", { subject: "Work only", unread: true, labels: ["Work"] }),
  message("s1", { subject: "Secret", unread: true, labels: ["Private"] }),
];

test("list_unread: INBOX by default, is:unread asked of the host, summaries in snake_case", async () => {
  const { tools, gmail } = await mailPlugin({ messages: INBOX });
  const result = callOk(tools, "list_unread", {});
  assert.deepEqual(gmail.calls, [{ fn: "listMessages", arg: { label: "INBOX", query: "is:unread", maxResults: 20 } }]);
  assert.equal(result.label, "INBOX");
  assert.equal(result.count, 2);
  const messages = result.messages as Record<string, unknown>[];
  assert.deepEqual(messages.map((m) => m.id), ["m1", "m3"]);
  assert.deepEqual(Object.keys(messages[0]!).sort(), ["date", "from", "id", "labels", "snippet", "subject", "thread_id", "to", "unread"]);
  assert.equal(messages[1]!.from, '"Doe, Jane" <jane@example.com>');
  assert.equal(result.next_page_token, undefined);
});

test("list_unread: label, max_results, query and page_token reach the host; the caller's query is grouped", async () => {
  const { tools, gmail } = await mailPlugin({ messages: INBOX, nextPageToken: "p2" });
  const result = callOk(tools, "list_unread", { label: "Work", max_results: 5, query: "from:alice OR from:bob", page_token: "p1" });
  assert.deepEqual(gmail.calls[0]?.arg, { label: "Work", query: "is:unread (from:alice OR from:bob)", maxResults: 5, pageToken: "p1" });
  assert.deepEqual((result.messages as { id: string }[]).map((m) => m.id), ["m3", "w1"]);
  assert.equal(result.next_page_token, "p2");
});

test("list_unread: a backend that ignores the search still lists only unread mail", async () => {
  const { tools } = await mailPlugin({ messages: INBOX, ignoreQuery: true });
  const result = callOk(tools, "list_unread", {});
  assert.deepEqual((result.messages as { id: string }[]).map((m) => m.id), ["m1", "m3"]);
});

test("list_unread: a label outside the grant is the host's denial, passed on as denied; INBOX works (control)", async () => {
  const { tools } = await mailPlugin({ messages: INBOX });
  const error = callErr(tools, "list_unread", { label: "Private" });
  assert.equal(error.tag, "denied");
  assert.deepEqual(error.tag === "denied" && [error.val.capability, error.val.reason], ["gmail.read", "label-not-granted"]);
  callOk(tools, "list_unread", { label: "INBOX" });
});

const BAD_INPUT: Array<[string, string, unknown]> = [
  ["list_unread", "max_results 0", { max_results: 0 }],
  ["list_unread", "max_results 101", { max_results: 101 }],
  ["list_unread", "max_results not an integer", { max_results: 2.5 }],
  ["list_unread", "an empty label", { label: " " }],
  ["list_unread", "an unknown field", { labels: ["INBOX"] }],
  ["list_unread", "not an object", "[]"],
  ["read_message", "no id", {}],
  ["read_message", "an empty id", { id: "" }],
  ["read_message", "a number id", { id: 7 }],
  ["read_message", "max_chars 0", { id: "m1", max_chars: 0 }],
  ["summarize_thread", "no thread_id", {}],
  ["summarize_thread", "an empty thread_id", { thread_id: "  " }],
  ["list_unread", "input that is not JSON", "{"],
];

for (const [tool, description, input] of BAD_INPUT) {
  test(`${tool}: invalid-input for ${description}, before any host call`, async () => {
    const { tools, gmail } = await mailPlugin({ messages: INBOX });
    const error = callErr(tools, tool, input);
    assert.equal(error.tag, "invalid-input", JSON.stringify(error));
    assert.deepEqual(gmail.calls, []);
  });
}

test("read_message: headers, text, attachments listed (sizes as numbers)", async () => {
  const full = message("r1", { subject: "Contract", text: "Please sign.\nThanks", threadId: "t9" });
  full.inReplyTo = "<r0@mail.example.com>";
  full.references = ["<r0@mail.example.com>"];
  full.attachments = [{ filename: "contract.pdf", mimeType: "application/pdf", size: 123_456n }];
  full.cc = "Carol <carol@example.com>, Legal: dan@example.com, erin@example.com;";
  full.bcc = "frank@example.com";
  full.replyTo = "contracts@example.com";
  full.sender = "Assistant <assistant@example.com>";
  const { tools } = await mailPlugin({ messages: [full] });
  const result = callOk(tools, "read_message", { id: "r1" });
  assert.deepEqual(result, {
    id: "r1",
    thread_id: "t9",
    headers: {
      from: "Alice <alice@example.com>",
      to: "bob@example.com",
      cc: "Carol <carol@example.com>, Legal: dan@example.com, erin@example.com;",
      bcc: "frank@example.com",
      reply_to: "contracts@example.com",
      sender: "Assistant <assistant@example.com>",
      subject: "Contract",
      date: "2026-11-20T10:00:00Z",
      message_id: "<r1@mail.example.com>",
      in_reply_to: "<r0@mail.example.com>",
      references: ["<r0@mail.example.com>"],
    },
    labels: ["INBOX"],
    unread: true,
    text: "Please sign.\nThanks",
    text_chars: 19,
    truncated: false,
    attachments: [{ filename: "contract.pdf", mime_type: "application/pdf", size: 123_456 }],
  });
});

test("read_message: the body is cut at max_chars, never inside a surrogate pair", async () => {
  const { tools } = await mailPlugin({ messages: [message("long", { text: "ab🙂cd" })] });
  const cut = callOk(tools, "read_message", { id: "long", max_chars: 3 });
  assert.deepEqual([cut.text, cut.truncated, cut.text_chars], ["ab", true, 6]);
  const whole = callOk(tools, "read_message", { id: "long", max_chars: 6 });
  assert.deepEqual([whole.text, whole.truncated], ["ab🙂cd", false]);
});

test("read_message: not-found and denied pass through as their cases", async () => {
  const { tools } = await mailPlugin({ messages: INBOX });
  assert.equal(callErr(tools, "read_message", { id: "nope" }).tag, "not-found");
  const denied = callErr(tools, "read_message", { id: "s1" });
  assert.equal(denied.tag, "denied");
  assert.equal(denied.tag === "denied" && denied.val.reason, "label-not-granted");
});

const THREAD = [
  message("a", { threadId: "T", date: "2026-11-01T09:00:00Z", from: "Alice <alice@example.com>", to: "Bob <bob@example.com>, carol@example.com", subject: "Plan", unread: false }),
  message("b", { threadId: "T", date: "2026-11-01T10:30:00Z", from: "bob@example.com", to: "Alice <ALICE@example.com>", subject: "Re: Plan", unread: false }),
  message("c", { threadId: "T", date: "2026-11-02T08:00:00.250Z", from: '"Carol, C." <carol@example.com>', to: "Team: alice@example.com, Bob <bob@example.com>;", subject: "Re: Plan", unread: true }),
  message("d", { threadId: "T", date: "2026-11-02T09:00:00Z", from: "Alice <alice@example.com>", to: "bob@example.com", subject: "Re: Plan", unread: true, labels: ["Private"] }),
];

for (const order of ["oldest-first", "reversed"] as const) {
  test(`summarize_thread: messages oldest first, participants and counts (host order: ${order})`, async () => {
    const { tools } = await mailPlugin({ messages: THREAD, threadOrder: order });
    const result = callOk(tools, "summarize_thread", { thread_id: "T" });
    assert.equal(result.thread_id, "T");
    assert.equal(result.subject, "Plan");
    assert.equal(result.message_count, 3, "the message under a label not granted is not seen");
    assert.equal(result.unread_count, 1);
    assert.equal(result.first_date, "2026-11-01T09:00:00Z");
    assert.equal(result.last_date, "2026-11-02T08:00:00.250Z");
    assert.deepEqual(
      (result.messages as { id: string }[]).map((m) => m.id),
      ["a", "b", "c"],
    );
    assert.deepEqual(Object.keys((result.messages as object[])[0]!).sort(), ["date", "from", "id", "snippet", "subject", "unread"]);
    assert.deepEqual(result.participants, [
      { name: "Alice", email: "alice@example.com", sent: 1 },
      { name: "Bob", email: "bob@example.com", sent: 1 },
      { name: "Carol, C.", email: "carol@example.com", sent: 1 },
    ]);
  });
}

test("summarize_thread: a date that does not parse keeps the host's order whole", async () => {
  const messages = [
    message("x", { threadId: "U", date: "not a date" }),
    message("y", { threadId: "U", date: "2020-01-01T00:00:00Z" }),
  ];
  const { tools } = await mailPlugin({ messages });
  const result = callOk(tools, "summarize_thread", { thread_id: "U" });
  assert.deepEqual((result.messages as { id: string }[]).map((m) => m.id), ["x", "y"]);
});

test("summarize_thread: an unknown thread is not-found; a thread with nothing readable is not-found too", async () => {
  const { tools } = await mailPlugin({ messages: [message("p", { threadId: "P", labels: ["Private"] })] });
  assert.equal(callErr(tools, "summarize_thread", { thread_id: "nope" }).tag, "not-found");
  const hidden = callErr(tools, "summarize_thread", { thread_id: "P" });
  assert.equal(hidden.tag, "not-found");
  assert.match(hidden.tag === "not-found" ? hidden.val : "", /no message of it is readable/);
});

// What a broken or hostile host might throw: none of it may escape `call` as an Error.
const FAULTS: Array<[string, () => never, string]> = [
  ["an io host error", () => { throw Object.assign(new Error("x"), { payload: { tag: "io", val: "backend down" } }); }, "failed"],
  ["a plain Error", () => { throw new Error("boom"); }, "failed"],
  ["a string", () => { throw "just a string"; }, "failed"],
  ["an object whose getter throws", () => { throw { get tag(): string { throw new Error("getter"); } }; }, "failed"],
  ["a denial with non-string fields", () => { throw { payload: { tag: "denied", val: { capability: 1, reason: null, message: {} } } }; }, "denied"],
];

for (const [description, fault, tag] of FAULTS) {
  test(`no Error escapes call: the host throws ${description}`, async () => {
    const { tools, gmail } = await mailPlugin({ messages: INBOX });
    gmail.fault("listMessages", fault);
    gmail.fault("getMessage", fault);
    gmail.fault("getThread", fault);
    assert.equal(callErr(tools, "list_unread", {}).tag, tag);
    assert.equal(callErr(tools, "read_message", { id: "m1" }).tag, tag);
    assert.equal(callErr(tools, "summarize_thread", { thread_id: "t-m1" }).tag, tag);
  });
}

test("an unknown tool is not-found", async () => {
  const { tools } = await mailPlugin();
  assert.equal(callErr(tools, "send_message", {}).tag, "not-found");
});
