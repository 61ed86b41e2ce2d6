/**
 * Mail as it really is: RFC 2822 dates (obsolete forms included), unreadable Date headers,
 * encoded words whose label disagrees with their bytes, and a multipart/mixed message's own
 * HTML part. Each deny (unreadable, mojibake, dropped) beside a control that passes.
 */
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { createGmailProxy, MaildirBackend } from "../../../host-proxies/gmail/index.js";
import { decodeEncodedWords } from "../../../host-proxies/gmail/encoded-words.js";
import { parseMailDate } from "../../../host-proxies/gmail/mail-date.js";
import type { Message, MessageSummary } from "../../../host-proxies/gmail/index.js";
import { MAIL_FIXTURES } from "./_corpus.js";

const CORPUS = join(MAIL_FIXTURES, "..", "mail-corpus");

const dates: Array<[string, string | undefined]> = [
  ["Fri, 21 Nov 1997 09:55:06 -0600", "1997-11-21T15:55:06Z"],
  // RFC 2822 appendix A.5/A.6.3: folding, comments, whitespace around colons, obsolete zone and year.
  ["Thu,\r\n      13\r\n        Feb\r\n          1969\r\n      23:32\r\n               -0330 (Newfoundland Time)", "1969-02-14T03:02:00Z"],
  ["21 Nov 97 09:55:06 GMT", "1997-11-21T09:55:06Z"],
  ["Fri, 21 Nov 1997 09(comment):   55  :  06 -0600", "1997-11-21T15:55:06Z"],
  ["Mon, 1 Jan 01 10:00 EST", "2001-01-01T15:00:00Z"],
  ["Tue, 12 Oct 2010 16:21:05 +0000 (UTC)", "2010-10-12T16:21:05Z"],
  ["Sun Nov  6 08:49:37 1994", "1994-11-06T08:49:37Z"],
  // Not dates: each is marked unreadable, never guessed.
  ["", undefined],
  ["<HR>", undefined],
  ["Wed, 15 Dec 2010    59:10 -0500", undefined],
  ["Pn, 29 paX 2007 21:13:00 +0100", undefined],
  ["Tue, 12 Oct 2010 16:21:05 H0500", undefined],
  ["Tue, 31 Feb 2010 16:21:05 +0000", undefined],
  ["1", undefined],
];
for (const [raw, iso] of dates) {
  test(`Date ${JSON.stringify(raw.slice(0, 50))} → ${iso ?? "unreadable"}`, () => {
    const ms = parseMailDate(raw);
    assert.equal(ms === undefined ? undefined : new Date(ms).toISOString().replace(/\.000Z$/, "Z"), iso);
  });
}

const words: Array<[string, string, string]> = [
  ["a word labelled iso-8859-1 holding UTF-8 bytes", "=?iso-8859-1?Q?Caf=C3=A9_cr=C3=A8me?=", "Café crème"],
  ["control: real ISO-8859-1", "=?iso-8859-1?Q?Caf=E9?=", "Café"],
  ["raw 8-bit characters inside a word", "=?iso-8859-1?Q?Café?=", "Café"],
  ["a UTF-8 character split over two words", "=?utf-8?B?w6k=?= =?utf-8?Q?=C3?= =?utf-8?Q?=A9?=", "éé"],
  ["adjacent ISO-2022-JP words", "=?ISO-2022-JP?B?GyRCJUYlOSVIGyhC?= =?ISO-2022-JP?B?GyRCJUYlOSVIGyhC?=", "テストテスト"],
  ["text between words is kept", "=?utf-8?Q?a?= and =?utf-8?Q?b?=", "a and b"],
];
for (const [name, raw, text] of words) test(`encoded words: ${name}`, () => assert.equal(decodeEncodedWords(raw), text));

async function maildirOf(t: import("node:test").TestContext, files: Record<string, Buffer>): Promise<MaildirBackend> {
  const dir = await mkdtemp(join(tmpdir(), "clawhive-mailclass-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  for (const sub of ["cur", "new", "tmp"]) await mkdir(join(dir, sub));
  for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, "cur", `${name}:2,S`), bytes);
  return new MaildirBackend(dir);
}

test("an unreadable Date header is a warning naming the message, never silently the delivery time; control: a valid one warns nothing", async (t) => {
  const backend = await maildirOf(t, {
    "1.bad": await readFile(join(CORPUS, "mail-error_emails-bad_date_header2.eml")),
    "2.good": await readFile(join(CORPUS, "mail-rfc2822-example01.eml")),
  });
  const warnings: Array<{ messageId: string; reason: string }> = [];
  const proxy = createGmailProxy(backend, { labels: ["INBOX"], onWarning: (w) => warnings.push(w) });
  const listed = await proxy.listMessages({ label: "INBOX", query: undefined, maxResults: 10, pageToken: undefined });
  assert.equal(listed.messages.length, 2);
  assert.ok(listed.messages.every((m) => !("dateNote" in m)), "the note never reaches a guest");
  const bad = listed.messages.find((m) => m.subject.startsWith("40% OFF"));
  assert.deepEqual(warnings.map((w) => [w.messageId, /Date header "Wed, 15 Dec 2010 +59:10 -0500" cannot be read; the date shown is the delivery time/.test(w.reason)]), [[bad?.id, true]]);
});

test("multipart/mixed keeps its separate HTML part as text; control: a multipart/alternative HTML is not repeated", async (t) => {
  const mixed = Buffer.from(
    'From: a@example.com\r\nSubject: mixed\r\nDate: Mon, 2 Jan 2023 10:00:00 +0000\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nPlain part.\r\n--b\r\nContent-Type: text/html\r\n\r\n<p>Only in <b>HTML</b>.</p>\r\n--b--\r\n',
  );
  const alternative = Buffer.from(
    'From: a@example.com\r\nSubject: alternative\r\nDate: Mon, 2 Jan 2023 11:00:00 +0000\r\nContent-Type: multipart/alternative; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nSame words.\r\n--b\r\nContent-Type: text/html\r\n\r\n<p>Same words.</p>\r\n--b--\r\n',
  );
  const backend = await maildirOf(t, { "1.mixed": mixed, "2.alt": alternative });
  const listed = await backend.listMessages({ label: "INBOX", query: "", maxResults: 10, pageToken: undefined });
  const text = async (subject: string) => (await backend.getMessage(listed.messages.find((m) => m.subject === subject)!.id)).text;
  assert.equal(await text("mixed"), "Plain part.\n\nOnly in HTML.");
  assert.equal(await text("alternative"), "Same words.");
});

const readerHeaders = (m: Message) => ({ to: m.summary.to, cc: m.cc, bcc: m.bcc, replyTo: m.replyTo, sender: m.sender });

test("headers a reader needs: Cc, Bcc, Reply-To, Sender and groups as written, repeated ones joined; control: a message without them shows them empty", async (t) => {
  const repeated = Buffer.from(
    "From: a@example.com\r\nTo: b@example.com\r\nTo: =?utf-8?Q?Zo=C3=A9?= <zoe@example.com>\r\nCc: c@example.com\r\nCC: d@example.com\r\nBcc: e@example.com\r\nReply-To: list@example.com\r\nSender: bot@example.com\r\nSubject: repeated\r\nDate: Mon, 2 Jan 2023 10:00:00 +0000\r\n\r\nbody\r\n",
  );
  const backend = await maildirOf(t, {
    "1.repeated": repeated,
    "2.group": await readFile(join(CORPUS, "mail-rfc2822-example04.eml")),
    "3.plain": await readFile(join(CORPUS, "mail-rfc2822-example01.eml")),
  });
  const listed = await backend.listMessages({ label: "INBOX", query: "", maxResults: 10, pageToken: undefined });
  const read = async (which: (m: MessageSummary) => boolean) => readerHeaders(await backend.getMessage(listed.messages.find(which)!.id));
  assert.deepEqual(await read((m) => m.subject === "repeated"), { to: "b@example.com, Zoé <zoe@example.com>", cc: "c@example.com, d@example.com", bcc: "e@example.com", replyTo: "list@example.com", sender: "bot@example.com" });
  assert.deepEqual(await read((m) => m.to.startsWith("A Group")), { to: "A Group:Chris Jones <c@a.test>,joe@where.test,John <jdoe@one.test>;", cc: "Undisclosed recipients:;", bcc: "", replyTo: "", sender: "" });
  assert.deepEqual(await read((m) => m.subject === "Saying Hello"), { to: "Mary Smith <mary@example.net>", cc: "", bcc: "", replyTo: "", sender: "" });
});
