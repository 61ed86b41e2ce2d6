/**
 * Every message under test/fixtures (mail/, mail-corpus/), read through both local backends — a
 * Maildir and an mbox holding the same bytes — and compared with each other and with an
 * independent parse (mailparser's own fields, not our header decoding or date parsing). Fields
 * compared: subject, the addresses of every header a reader needs (From, To, Cc, Bcc, Reply-To,
 * Sender; groups' members included), the date (or, when mailparser finds no date, that ours
 * says so), and the body text (mailparser's text/plain must be contained in ours). Where ours and
 * mailparser disagree the difference must be one hand-checked in _mail-expected.ts.
 */
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { simpleParser } from "mailparser";
import { MaildirBackend } from "../../../host-proxies/gmail/index.js";
import type { Message } from "../../../host-proxies/gmail/index.js";
import { MAIL_EXPECTED } from "./_mail-expected.js";
import { corpusFiles, tempDir, writeFound } from "./_corpus.js";

const FOLDERS = ["mail", "mail-corpus"];

/** The same bytes as one Maildir message and as the one message of an mbox (mboxrd-escaped). */
async function bothBackends(t: TestContext, bytes: Buffer): Promise<{ maildir: Message; mbox: Message }> {
  const dir = await tempDir(t, "clawhive-mailconf-");
  for (const sub of ["cur", "new", "tmp"]) await mkdir(join(dir, sub));
  await writeFile(join(dir, "cur", "1700000000.conformance:2,S"), bytes);
  const escaped = bytes.toString("latin1").replace(/^(>*From )/gm, ">$1");
  await writeFile(join(dir, "archive.mbox"), Buffer.from(`From conformance@example.com Thu Jan  1 00:00:00 2026\n${escaped}\n`, "latin1"));
  const backend = new MaildirBackend(dir, { mbox: [{ label: "Archive", path: join(dir, "archive.mbox") }] });
  const one = async (label: string) => {
    const listed = await backend.listMessages({ label, query: "", maxResults: 10, pageToken: undefined });
    assert.equal(listed.messages.length, 1, `${label}: one message`);
    return backend.getMessage(listed.messages[0]!.id);
  };
  return { maildir: await one("INBOX"), mbox: await one("Archive") };
}

/** What both backends must agree on (not ids, labels or a delivery time, which differ by store). */
function comparable(m: Message) {
  const { id: _i, threadId: _t, labels: _l, unread: _u, ...summary } = m.summary;
  return { ...summary, date: summary.dateNote === undefined ? summary.date : "(delivery time)", text: m.text, attachments: m.attachments, messageId: m.messageId };
}

const squash = (s: string) => s.replace(/\s+/g, " ").trim();
/**
 * The addresses in a header as ours shows it (as written): display names, quoted strings,
 * comments and group names are not addresses; what is in angle brackets is, and so is a bare
 * word with an `@`.
 */
function addresses(header: string): string[] {
  let text = header.replace(/"(?:[^"\\]|\\.)*"/g, " ").replace(/\\./g, "");
  for (let before = ""; before !== text; ) [before, text] = [text, text.replace(/\([^()]*\)/g, "")];
  const found: string[] = [];
  text = text.replace(/[^,;:<>]*<([^<>]*)>/g, (_, address: string) => {
    found.push(address.trim());
    return ",";
  });
  for (const part of text.split(/[,;]/)) found.push(...part.slice(part.lastIndexOf(":") + 1).trim().split(/\s+/).filter((word) => word.includes("@")));
  return [...new Set(found.filter((a) => a !== "").map((a) => a.toLowerCase()))].sort();
}

/** Every address mailparser found in one header (or several of one name), groups' members included. */
function refAddresses(value: unknown): string[] {
  const found: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (typeof v !== "object" || v === null) return;
    const entry = v as { value?: unknown; address?: unknown; group?: unknown };
    if (typeof entry.address === "string" && entry.address !== "") found.push(entry.address.toLowerCase());
    walk(entry.group);
    walk(entry.value);
  };
  walk(value);
  return [...new Set(found)].sort();
}

async function disagreements(bytes: Buffer, ours: Message): Promise<string[]> {
  const ref = await simpleParser(bytes, { skipHtmlToText: true, skipImageLinks: true, skipTextLinks: true, skipTextToHtml: true });
  const out: string[] = [];
  if (squash(ours.summary.subject) !== squash(ref.subject ?? "")) out.push("subject");
  const oursByField: Record<string, string> = { from: ours.summary.from, to: ours.summary.to, cc: ours.cc, bcc: ours.bcc, "reply-to": ours.replyTo, sender: ours.sender };
  for (const [field, mine] of Object.entries(oursByField)) {
    if (JSON.stringify(addresses(mine)) !== JSON.stringify(refAddresses(ref.headers.get(field)))) out.push(field);
  }
  const refDate = ref.date instanceof Date && Number.isFinite(ref.date.getTime()) ? ref.date.toISOString().replace(/\.\d{3}Z$/, "Z") : undefined;
  if (refDate === undefined ? ours.summary.dateNote === undefined : ours.summary.dateNote !== undefined || ours.summary.date !== refDate) out.push("date");
  const refText = typeof ref.text === "string" ? squash(ref.text) : "";
  if (refText !== "" && !squash(ours.text).includes(refText)) out.push("text");
  return out;
}

test("mail conformance: Maildir and mbox agree on every fixture message, and with mailparser or as hand-checked", async (t) => {
  const files = await corpusFiles(FOLDERS, ".eml");
  assert.ok(files.length >= 100, `only ${files.length} messages found`);
  const found: Record<string, string[]> = {};
  const problems: string[] = [];
  for (const file of files) {
    const bytes = await readFile(file.path);
    const { maildir, mbox } = await bothBackends(t, bytes);
    assert.deepEqual(comparable(mbox), comparable(maildir), `${file.name}: the mbox and Maildir backends disagree`);
    const fields = await disagreements(bytes, maildir);
    if (fields.length > 0) found[file.name] = fields;
    const expected = MAIL_EXPECTED[file.name]?.fields ?? [];
    if (JSON.stringify(fields) !== JSON.stringify(expected)) problems.push(`${file.name}: disagrees on ${JSON.stringify(fields)}, expected ${JSON.stringify(expected)}`);
  }
  const count = Object.values(found).reduce((n, f) => n + f.length, 0);
  t.diagnostic(`mail conformance: ${files.length} messages, both backends identical; ${count} field disagreements with mailparser in ${Object.keys(found).length} messages, each hand-checked`);
  writeFound(found);
  assert.deepEqual(problems, []);
  assert.deepEqual(Object.keys(MAIL_EXPECTED).filter((name) => !files.some((f) => f.name === name)), [], "every expectation names a file that exists");
});
