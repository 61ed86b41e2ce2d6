/**
 * The AssemblyScript mail plugin against `clawhive:host/gmail`, byte for byte through jco's glue:
 * every option of a list request lowered (none stays none), every field of a message lifted
 * (a u64 size past 2^32, non-ASCII text, an absent in-reply-to), and memory flat over a long session.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { loadComponent } from "./component.js";

const summary = (id: string) => ({
  id, threadId: `t-${id}`, from: "Zoë <zoe@exämple.com>", to: "bob@example.com", subject: `Ünïcode 🦀 ${id}`,
  date: "2026-11-20T10:00:00Z", snippet: "…", labels: ["INBOX", "Work/Clients"], unread: true,
});

async function plugin() {
  const calls: unknown[][] = [];
  const answers: Record<string, unknown> = {};
  const host: Record<string, (arg: unknown) => unknown> = {};
  for (const fn of ["listMessages", "getMessage", "getThread"]) host[fn] = (arg: unknown) => (calls.push([fn, arg]), answers[fn]);
  // The plugin's send tool imports clawhive:host/mail too; these tests call only the gmail tools.
  const mail = { send: (arg: unknown) => (calls.push(["send", arg]), answers["send"]) };
  const loaded = await loadComponent(join(PROJECT_ROOT, "plugins", "mail"), { "clawhive:host/gmail": host, "clawhive:host/mail": mail });
  return { ...loaded, calls, answers };
}

test("gmail.list-messages: each option lowered, none stays none; the page token lifted", async () => {
  const p = await plugin();
  p.answers["listMessages"] = { messages: [summary("a")], nextPageToken: "p-ü" };
  const out = JSON.parse(p.tools.call("list_unread", JSON.stringify({ label: "Wörk", max_results: 7, query: "from:zoë", page_token: "p-1" }))) as Record<string, unknown>;
  p.answers["listMessages"] = { messages: [], nextPageToken: undefined };
  const bare = JSON.parse(p.tools.call("list_unread", "{}")) as Record<string, unknown>;
  assert.deepEqual(p.calls, [
    ["listMessages", { label: "Wörk", query: "is:unread (from:zoë)", maxResults: 7, pageToken: "p-1" }],
    ["listMessages", { label: "INBOX", query: "is:unread", maxResults: 20, pageToken: undefined }],
  ]);
  assert.equal(out.next_page_token, "p-ü");
  assert.deepEqual((out.messages as unknown[])[0], {
    id: "a", thread_id: "t-a", from: "Zoë <zoe@exämple.com>", to: "bob@example.com", subject: "Ünïcode 🦀 a",
    date: "2026-11-20T10:00:00Z", snippet: "…", labels: ["INBOX", "Work/Clients"], unread: true,
  });
  assert.equal("next_page_token" in bare, false);
});

test("gmail.get-message: every field lifted; in-reply-to none and some", async () => {
  const p = await plugin();
  for (const inReplyTo of [undefined, "<r0@ex>"]) {
    p.answers["getMessage"] = {
      summary: summary("m"), text: "Hej då 🙂", cc: "c@ex", bcc: "b@ex", replyTo: "r@ex", sender: "s@ex", messageId: "<m@ex>", inReplyTo,
      references: ["<r0@ex>", "<r1@ex>"],
      attachments: [{ filename: "ä.pdf", mimeType: "application/pdf", size: 5_000_000_000n }, { filename: "", mimeType: "text/plain", size: 0n }],
    };
    const out = JSON.parse(p.tools.call("read_message", '{"id":"m"}')) as { headers: Record<string, unknown>; attachments: unknown[]; text: string; text_chars: number };
    assert.equal(out.headers.in_reply_to, inReplyTo);
    assert.deepEqual(out.headers.references, ["<r0@ex>", "<r1@ex>"]);
    assert.deepEqual([out.headers.cc, out.headers.bcc, out.headers.reply_to, out.headers.sender, out.headers.message_id], ["c@ex", "b@ex", "r@ex", "s@ex", "<m@ex>"]);
    assert.deepEqual(out.attachments, [{ filename: "ä.pdf", mime_type: "application/pdf", size: 5_000_000_000 }, { filename: "", mime_type: "text/plain", size: 0 }]);
    assert.deepEqual([out.text, out.text_chars], ["Hej då 🙂", 9]);
  }
});

test("gmail: memory stays flat over 3,000 calls of every tool", async () => {
  const p = await plugin();
  p.answers["listMessages"] = { messages: [summary("a"), summary("b")], nextPageToken: "n" };
  p.answers["getThread"] = [summary("a"), summary("b")];
  p.answers["getMessage"] = { summary: summary("m"), text: "x".repeat(2000), cc: "", bcc: "", replyTo: "", sender: "", messageId: "", references: [], attachments: [{ filename: "f", mimeType: "t", size: 1n }] };
  const round = () => {
    p.tools.call("list_unread", "{}");
    p.tools.call("read_message", '{"id":"m"}');
    p.tools.call("summarize_thread", '{"thread_id":"t"}');
  };
  for (let i = 0; i < 200; i++) round();
  const before = p.memoryBytes();
  for (let i = 0; i < 1000; i++) round();
  assert.equal(p.memoryBytes(), before);
});
