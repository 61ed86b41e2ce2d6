/** MaildirBackend: the shared suites, then what only a local mailbox has (flags, names, mbox, ids). */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { InvalidInputError } from "../../../runtime/errors.js";
import { MaildirBackend } from "../../../host-proxies/gmail/index.js";
import { rejectsWith } from "../../helpers/host-errors.js";
import { maildirUnderTest } from "./_backends.js";
import { MAIL_FIXTURES, mboxrd, NOW } from "./_corpus.js";
import { list, mailBackendConformance, SUBJECTS } from "./_conformance.js";
import { gmailProxyConformance } from "./_proxy-cases.js";

mailBackendConformance("MaildirBackend", maildirUnderTest);
gmailProxyConformance("MaildirBackend", maildirUnderTest);

const YAHOO = readFileSync(join(MAIL_FIXTURES, "yahoo-rfc2047-utf8-subject.eml"));

/** A fresh Maildir root with `files` ({"cur/x:2,S": bytes, ".Sub/cur/y": bytes}) written into it. */
function maildir(t: TestContext, files: Record<string, Buffer> = {}): string {
  const root = mkdtempSync(join(tmpdir(), "clawhive-maildir-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  for (const sub of ["cur", "new", "tmp"]) mkdirSync(join(root, sub));
  for (const [path, bytes] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), bytes);
  }
  return root;
}

/** [file under the root, unread, starred, listed] */
const FLAG_ROWS: Array<[string, boolean, boolean, boolean]> = [
  ["new/1000000001.A.host", true, false, true],
  ["cur/1000000002.B.host:2,", true, false, true],
  ["cur/1000000003.C.host:2,S", false, false, true],
  ["cur/1000000004.D.host:2,FS", false, true, true],
  ["cur/1000000005.E.host:2,F", true, true, true],
  ["cur/1000000006.F.host:2,RST", false, false, true],
  ["cur/.1000000007.hidden:2,S", false, false, false],
  ["tmp/1000000008.G.host", false, false, false],
];

test("Maildir flags: no S is unread, F is STARRED; tmp/ and dot-files are not mail", async (t) => {
  const root = maildir(t, Object.fromEntries(FLAG_ROWS.map(([file]) => [file, YAHOO])));
  const { messages } = await list(new MaildirBackend(root), "INBOX");
  const listed = FLAG_ROWS.filter((r) => r[3]);
  assert.equal(messages.length, listed.length);
  // Same bytes everywhere, so rows map by delivery time: newest (highest epoch) first.
  for (const [i, [file, unread, starred]] of [...listed].reverse().entries()) {
    const m = messages[i];
    assert.deepEqual([m?.unread, m?.labels.includes("STARRED"), m?.labels.includes("UNREAD")], [unread, starred, unread], file);
  }
});

test("a symlink in cur/ is not followed; control: the regular file beside it", async (t) => {
  const root = maildir(t, { "cur/1000000001.A.host:2,S": YAHOO });
  const outside = join(root, "..", `outside-${process.pid}.eml`);
  writeFileSync(outside, YAHOO);
  t.after(() => rmSync(outside, { force: true }));
  symlinkSync(outside, join(root, "cur", "1000000002.B.host:2,S"));
  assert.equal((await list(new MaildirBackend(root), "INBOX")).messages.length, 1);
});

test("a symlinked cur/ or folder is not read; control: a real one", async (t) => {
  const elsewhere = maildir(t, { "cur/1000000001.A.host:2,S": YAHOO });
  const root = maildir(t);
  rmSync(join(root, "cur"), { recursive: true });
  symlinkSync(join(elsewhere, "cur"), join(root, "cur"));
  symlinkSync(elsewhere, join(root, ".Linked"));
  const backend = new MaildirBackend(root);
  await rejectsWith(list(backend, "INBOX"), { tag: "not-found" });
  await rejectsWith(list(backend, "Linked"), { tag: "not-found" });
  assert.equal((await list(new MaildirBackend(elsewhere), "INBOX")).messages.length, 1);
});

test("ids survive a flag change and the move from new/ to cur/; another folder is another id", async (t) => {
  const root = maildir(t, { "new/1000000001.A.host": YAHOO, ".Other/cur/1000000001.A.host:2,S": YAHOO });
  const backend = new MaildirBackend(root);
  const before = (await list(backend, "INBOX")).messages[0];
  renameSync(join(root, "new", "1000000001.A.host"), join(root, "cur", "1000000001.A.host:2,FS"));
  const after = (await list(backend, "INBOX")).messages[0];
  assert.equal(after?.id, before?.id);
  assert.deepEqual([before?.unread, after?.unread, after?.labels.includes("STARRED")], [true, false, true]);
  const other = (await list(backend, "Other")).messages[0];
  assert.notEqual(other?.id, before?.id);
  assert.equal((await backend.getMessage(before?.id ?? "")).summary.subject, SUBJECTS.bilingual);
});

test("a message renamed after the listing is still found by id; one deleted is not-found", async (t) => {
  const root = maildir(t, { "cur/1000000001.A.host:2,": YAHOO, "cur/1000000002.B.host:2,S": YAHOO });
  const backend = new MaildirBackend(root);
  const [second, first] = (await list(backend, "INBOX")).messages;
  renameSync(join(root, "cur", "1000000001.A.host:2,"), join(root, "cur", "1000000001.A.host:2,S"));
  assert.equal((await backend.getMessage(first?.id ?? "")).summary.unread, false);
  rmSync(join(root, "cur", "1000000002.B.host:2,S"));
  await rejectsWith(backend.getMessage(second?.id ?? ""), { tag: "not-found" });
});

/** [directory beside cur/new/tmp, label or undefined when it is not a folder] */
const FOLDER_ROWS: Array<[string, string | undefined]> = [
  [".Work.Reports", "Work/Reports"],
  [".Entw&APw-rfe", "Entwürfe"],
  [".Tom &- Jerry", "Tom & Jerry"],
  [".INBOX", undefined],
  [".a..b", undefined],
  [".bad&AB", undefined],
  ["NoDot", undefined],
];

for (const [dir, label] of FOLDER_ROWS) {
  test(`Maildir++ folder ${JSON.stringify(dir)} → ${label === undefined ? "not a label" : JSON.stringify(label)}`, async (t) => {
    const root = maildir(t, { [`${dir}/cur/1000000001.A.host:2,S`]: YAHOO });
    const backend = new MaildirBackend(root);
    if (label !== undefined) assert.equal((await list(backend, label)).messages.length, 1);
    else assert.equal((await list(backend, "INBOX")).messages.length, 0);
  });
}

test("a folder without cur/ is not a label", async (t) => {
  const root = maildir(t, { ".Empty/new/1000000001.A.host": YAHOO });
  await rejectsWith(list(new MaildirBackend(root), "Empty"), { tag: "not-found" });
});

test("mbox: Status R is read, X-Status F is starred, no Status is unread", async (t) => {
  const root = maildir(t);
  const withHeaders = (extra: string) => Buffer.concat([Buffer.from(extra), YAHOO]);
  const path = join(root, "..", `status-${process.pid}.mbox`);
  t.after(() => rmSync(path, { force: true }));
  writeFileSync(path, mboxrd([
    { bytes: withHeaders("Status: RO\r\n"), fromLine: "From a@b Sat Jan  1 00:00:03 2000" },
    { bytes: withHeaders("Status: O\r\nX-Status: F\r\n"), fromLine: "From a@b Sat Jan  1 00:00:02 2000" },
    { bytes: YAHOO, fromLine: "From a@b Sat Jan  1 00:00:01 2000" },
  ]));
  const { messages } = await list(new MaildirBackend(root, { mbox: [{ label: "Old", path }] }), "Old");
  assert.deepEqual(messages.map((m) => [m.unread, m.labels.includes("STARRED")]), [[false, false], [true, true], [true, false]]);
});

test("mbox ids: by content, so they survive other messages coming and going; twins differ", async (t) => {
  const root = maildir(t);
  const path = join(root, "..", `ids-${process.pid}.mbox`);
  t.after(() => rmSync(path, { force: true }));
  const nodemailer = readFileSync(join(MAIL_FIXTURES, "nodemailer-unicode-attachments.eml"));
  const entry = (bytes: Buffer, n: number) => ({ bytes, fromLine: `From a@b Sat Jan  1 00:00:0${n} 2000` });
  const ids = async () => (await list(new MaildirBackend(root, { mbox: [{ label: "Box", path }] }), "Box")).messages.map((m) => [m.subject, m.id]);
  writeFileSync(path, mboxrd([entry(YAHOO, 1), entry(YAHOO, 2)]));
  const twins = await ids();
  assert.notEqual(twins[0]?.[1], twins[1]?.[1]);
  writeFileSync(path, mboxrd([entry(nodemailer, 0), entry(YAHOO, 1), entry(YAHOO, 2)]));
  assert.deepEqual((await ids()).filter(([s]) => s === SUBJECTS.bilingual), twins);
});

/** [query, refused] — the local backend reads a subset; anything else must fail, not match all. */
const QUERY_ROWS: Array<[string, boolean]> = [
  ["in:anywhere", true],
  ["has:attachment", true],
  ["category:promotions", true],
  ["rfc822msgid:<a@b>", true],
  ["{from:a from:b}", true],
  ["OR is:read", true],
  ["is:read OR", true],
  ["is:read AND", true],
  ["()", true],
  ['""', true],
  ["is:bogus", true],
  ["newer_than:7w", true],
  ["subject:", true],
  ["-", false],
  ["is:read AND from:bob", false],
  ["-(is:read) subject:\"very long\"", false],
  ["FROM:bob", false],
];

for (const [query, refused] of QUERY_ROWS) {
  test(`local search ${JSON.stringify(query)}: ${refused ? "invalid-input" : "accepted"}`, async (t) => {
    const under = await maildirUnderTest();
    t.after(() => under.close());
    const listing = list(under.backend, "INBOX", query);
    if (refused) await rejectsWith(listing, { tag: "invalid-input", message: "query" });
    else assert.ok(Array.isArray((await listing).messages));
  });
}

test("a page token from another search is refused; control: its own search", async (t) => {
  const under = await maildirUnderTest();
  t.after(() => under.close());
  const first = await list(under.backend, "INBOX", "", { maxResults: 1 });
  assert.ok(first.nextPageToken !== undefined);
  await rejectsWith(list(under.backend, "INBOX", "is:read", { maxResults: 1, pageToken: first.nextPageToken }), { tag: "invalid-input" });
  await rejectsWith(list(under.backend, "Workshop", "", { maxResults: 1, pageToken: "forged" }), { tag: "invalid-input" });
  assert.equal((await list(under.backend, "INBOX", "", { maxResults: 1, pageToken: first.nextPageToken })).messages[0]?.subject, SUBJECTS.longLinks);
});

test("a message longer than maxMessageBytes is read cut, and says so", async (t) => {
  const under = await maildirUnderTest();
  t.after(() => under.close());
  const small = new MaildirBackend(under.mailbox.root, { maxMessageBytes: 4000, now: () => NOW });
  const cut = (await list(small, "INBOX")).messages.find((m) => m.subject === SUBJECTS.nodemailer);
  assert.ok((await small.getMessage(cut?.id ?? "")).text.endsWith("[clawhive: message truncated at the size limit]"));
});

test("constructor: a relative root or a reserved mbox label is refused", () => {
  assert.throws(() => new MaildirBackend("mail"), InvalidInputError);
  for (const label of ["INBOX", "UNREAD", "STARRED", ""]) {
    assert.throws(() => new MaildirBackend("/mail", { mbox: [{ label, path: "/x.mbox" }] }), InvalidInputError, label);
  }
  assert.throws(() => new MaildirBackend("/mail", { mbox: [{ label: "A", path: "/a" }, { label: "A", path: "/b" }] }), InvalidInputError);
  assert.ok(new MaildirBackend("/mail", { mbox: [{ label: "A", path: "/a" }] }) instanceof MaildirBackend);
});
