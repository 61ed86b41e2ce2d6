/**
 * The `MailBackend` conformance suite: the same assertions on the same messages (the corpus in
 * _corpus.ts, from the real fixtures) for every backend. Messages are found by label and
 * subject, never by id, since each backend makes its own ids.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { MailBackend, Message, MessageSummary } from "../../../host-proxies/gmail/index.js";
import { rejectsWith } from "../../helpers/host-errors.js";
import type { BackendUnderTest, MakeBackend } from "./_backends.js";

export const SUBJECTS = {
  nodemailer: "Nodemailer is unicode friendly ✔ (1476358788189)",
  longLinks: "This message contains very long links in html",
  forward: "Fwd: Please forward this email to me",
  bilingual: "Simple text. How are you? Как ты поживаешь?",
  pdf: "test message via curl - extra content-type (_001_)",
  apache: "Re: running server as root (Was: Re: PUT method)",
  secret: "Re: PUT method",
  fromLines: "Lines that start with From",
} as const;

export async function list(backend: MailBackend, label: string, query = "", extra: { maxResults?: number; pageToken?: string } = {}) {
  return backend.listMessages({ label, query, maxResults: extra.maxResults ?? 50, pageToken: extra.pageToken });
}

export async function bySubject(backend: MailBackend, label: string, subject: string): Promise<MessageSummary> {
  const found = (await list(backend, label)).messages.find((m) => m.subject === subject);
  assert.ok(found !== undefined, `no ${JSON.stringify(subject)} under ${label}`);
  return found;
}

const INBOX_ROWS: Array<{ subject: string; from: string; date: string; unread: boolean; labels: string[]; snippet: string; why: string }> = [
  { subject: SUBJECTS.nodemailer, from: "Andris Kreata <andris@kreata.ee>", date: "2016-10-13T11:39:48Z", unread: true, labels: ["INBOX", "UNREAD"], snippet: "Hello to myself!", why: "RFC 2047 Q word in a folded subject; in new/" },
  { subject: SUBJECTS.longLinks, from: "Bob <bob@example.com>", date: "2013-07-05T17:47:34Z", unread: false, labels: ["INBOX", "STARRED"], snippet: "Hello Bob, Please note", why: "flags FS" },
  { subject: SUBJECTS.forward, from: "Hello <hello@example.com>", date: "2011-02-09T08:55:37Z", unread: false, labels: ["INBOX"], snippet: "---------- Forwarded message", why: "flag S" },
  { subject: SUBJECTS.bilingual, from: "Hello <hello@example.com>", date: "2010-02-07T22:02:38Z", unread: false, labels: ["INBOX"], snippet: "This line is in English А эта линия по-русски.", why: "two RFC 2047 B words; flags RS" },
];

const NODEMAILER_ATTACHMENTS = [
  { filename: "image.png", mimeType: "image/png", size: 126n },
  { filename: "nyan cat ✔.gif", mimeType: "image/gif", size: 29361n },
  { filename: "notes.txt", mimeType: "text/plain", size: 28n },
];

const SEARCH_ROWS: Array<[query: string, subjects: string[]]> = [
  ["", [SUBJECTS.nodemailer, SUBJECTS.longLinks, SUBJECTS.forward, SUBJECTS.bilingual]],
  ["is:unread", [SUBJECTS.nodemailer]],
  ["-is:unread", [SUBJECTS.longLinks, SUBJECTS.forward, SUBJECTS.bilingual]],
  ["is:starred", [SUBJECTS.longLinks]],
  ["from:bob", [SUBJECTS.longLinks]],
  ["to:bob@example.com", [SUBJECTS.bilingual]],
  ["subject:Fwd", [SUBJECTS.forward]],
  ["поживаешь", [SUBJECTS.bilingual]],
  ["extremely", [SUBJECTS.longLinks]],
  ['"Forward please"', [SUBJECTS.forward]],
  ["newer_than:30d", [SUBJECTS.nodemailer]],
  ["older_than:30d", [SUBJECTS.longLinks, SUBJECTS.forward, SUBJECTS.bilingual]],
  ["is:unread OR is:starred", [SUBJECTS.nodemailer, SUBJECTS.longLinks]],
  ["(from:bob OR from:andris) -is:unread", [SUBJECTS.longLinks]],
  ["label:inbox is:unread", [SUBJECTS.nodemailer]],
  ["nosuchwordanywhere", []],
];

const MESSAGE_ROWS: Array<{ label: string; subject: string; why: string; check: (m: Message) => void }> = [
  { label: "INBOX", subject: SUBJECTS.nodemailer, why: "mixed > alternative > related; base64 PNG/GIF, RFC 2231 name, text attachment", check: (m) => {
    assert.equal(m.text, "Hello to myself!");
    assert.deepEqual(m.attachments, NODEMAILER_ATTACHMENTS);
    assert.equal(m.messageId, "<012d606e-3550-2d94-b566-6cd996de88e3@kreata.ee>");
    assert.deepEqual([m.inReplyTo, m.references], [undefined, []]);
  } },
  { label: "INBOX", subject: SUBJECTS.longLinks, why: "quoted-printable soft breaks inside URLs are joined", check: (m) => {
    assert.ok(m.text.includes("&__utmv=-&__utmk=216038998"), m.text);
    assert.ok(!m.text.includes("=\n") && !m.text.includes("=3D"), m.text);
    assert.deepEqual(m.attachments, []);
  } },
  { label: "INBOX", subject: SUBJECTS.forward, why: "In-Reply-To, folded References; ISO-8859-1 alternative", check: (m) => {
    assert.equal(m.inReplyTo, "<AANLkTinUdYK2NpEiYCKGnCEp_OXKqst_bWNdBVHsfDVh@mail.gmail.com>");
    assert.deepEqual(m.references, ["<AANLkTi=1ANR2FzeeQ-vK3-_ty0gUrOsAxMRYkob6CL-c@mail.gmail.com>", "<AANLkTinUdYK2NpEiYCKGnCEp_OXKqst_bWNdBVHsfDVh@mail.gmail.com>"]);
    assert.ok(m.text.includes("Forward please") && !m.text.includes("<div"), m.text);
  } },
  { label: "INBOX", subject: SUBJECTS.bilingual, why: "quoted-printable UTF-8 Cyrillic", check: (m) => assert.equal(m.text, "This line is in English\nА эта линия по-русски.") },
  { label: "Work/Reports", subject: SUBJECTS.pdf, why: "base64 PDF attachment; preamble/epilogue ignored; no From/To/Message-ID", check: (m) => {
    assert.equal(m.text, "Test - body content");
    assert.deepEqual(m.attachments, [{ filename: "test.pdf", mimeType: "application/pdf", size: 6940n }]);
    assert.deepEqual([m.summary.from, m.summary.to, m.messageId], ["", "", ""]);
  } },
  { label: "Workshop", subject: SUBJECTS.apache, why: "References without In-Reply-To; a list's Reply-To and Sender", check: (m) => {
    assert.deepEqual([m.inReplyTo, m.references], [undefined, ["<Pine.BSF.3.95q.970712135859.28530B-100000@valis.worldgate.com>"]]);
    assert.deepEqual([m.summary.to, m.cc, m.bcc, m.replyTo, m.sender], ["new-httpd@apache.org", "", "", "new-httpd@apache.org", "new-httpd-owner@apache.org"]);
    assert.ok(m.text.startsWith("Marc Slemko wrote:\n> If you have a real uid of root"), m.text);
  } },
  { label: "Secret", subject: SUBJECTS.secret, why: "text/html only: converted to text", check: (m) => assert.equal(m.text, "The secret plan: run the server as root & hope.") },
  { label: "Lists", subject: SUBJECTS.fromLines, why: "mboxrd: body lines starting From come back unescaped", check: (m) => {
    assert.equal(m.text, "From the start of this line, an mbox writer must escape.\n>From here too, one level deeper.\nLast line.");
  } },
];

export function mailBackendConformance(name: string, make: MakeBackend): void {
  describe(`MailBackend conformance: ${name}`, () => {
    let under: BackendUnderTest;
    let backend: MailBackend;
    before(async () => {
      under = await make();
      backend = under.backend;
    });
    after(async () => under.close());

    test("lists a label newest first, with decoded summaries", async () => {
      const { messages, nextPageToken } = await list(backend, "INBOX");
      assert.equal(nextPageToken, undefined);
      assert.deepEqual(messages.map((m) => m.subject), INBOX_ROWS.map((r) => r.subject));
      for (const [i, row] of INBOX_ROWS.entries()) {
        const m = messages[i] as MessageSummary;
        assert.deepEqual({ from: m.from, date: m.date, unread: m.unread, labels: [...m.labels].sort() }, { from: row.from, date: row.date, unread: row.unread, labels: [...row.labels].sort() }, row.why);
        assert.ok(m.snippet.startsWith(row.snippet), `${row.why}: snippet ${JSON.stringify(m.snippet)}`);
        assert.ok(m.id !== "" && m.threadId !== "");
      }
    });

    test("every label: folders, Maildir++ names and an mbox", async () => {
      const subjects = async (label: string) => (await list(backend, label)).messages.map((m) => m.subject);
      assert.deepEqual(await subjects("Work/Reports"), [SUBJECTS.pdf]);
      assert.deepEqual(await subjects("Workshop"), [SUBJECTS.apache]);
      assert.deepEqual(await subjects("Secret"), [SUBJECTS.secret]);
      assert.deepEqual(await subjects("Lists"), [SUBJECTS.fromLines, SUBJECTS.pdf]);
    });

    test("a raw latin-1 byte in From is read as latin-1, not U+FFFD", async () => {
      const m = await bySubject(backend, "Workshop", SUBJECTS.apache);
      assert.equal(m.from, '"Ingo Lütkebohle" <ingo@blank.pages.de>');
      assert.equal(m.date, "1997-07-12T20:11:13Z");
    });

    for (const row of MESSAGE_ROWS) {
      test(`getMessage: ${row.why}`, async () => {
        const summary = await bySubject(backend, row.label, row.subject);
        const message = await backend.getMessage(summary.id);
        assert.deepEqual(message.summary, summary, "the summary matches the listing");
        row.check(message);
      });
    }

    for (const [query, subjects] of SEARCH_ROWS) {
      test(`search ${JSON.stringify(query)} under INBOX`, async () => {
        assert.deepEqual((await list(backend, "INBOX", query)).messages.map((m) => m.subject), subjects);
      });
    }

    test("paging: one message a page walks the whole listing once", async () => {
      const all = (await list(backend, "INBOX")).messages.map((m) => m.id);
      const seen: string[] = [];
      let pageToken: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await list(backend, "INBOX", "", { maxResults: 1, ...(pageToken === undefined ? {} : { pageToken }) });
        assert.ok(page.messages.length <= 1);
        seen.push(...page.messages.map((m) => m.id));
        pageToken = page.nextPageToken;
        if (pageToken === undefined) break;
      }
      assert.deepEqual(seen, all);
    });

    test("getThread: the messages of a thread across labels, oldest first", async () => {
      const reply = await bySubject(backend, "Workshop", SUBJECTS.apache);
      assert.deepEqual((await backend.getThread(reply.threadId)).map((m) => m.subject), [SUBJECTS.secret, SUBJECTS.apache]);
      const single = await bySubject(backend, "INBOX", SUBJECTS.nodemailer);
      assert.deepEqual((await backend.getThread(single.threadId)).map((m) => m.id), [single.id]);
    });

    test("ids are stable between calls", async () => {
      const first = (await list(backend, "INBOX")).messages.map((m) => [m.id, m.threadId]);
      assert.deepEqual((await list(backend, "INBOX")).messages.map((m) => [m.id, m.threadId]), first);
    });

    test("unknown ids and labels are not-found", async () => {
      const unknown = "0123456789abcdef0123456789abcdef";
      await rejectsWith(backend.getMessage(unknown), { tag: "not-found" });
      await rejectsWith(backend.getThread(unknown), { tag: "not-found" });
      await rejectsWith(list(backend, "No/Such/Label"), { tag: "not-found" });
    });
  });
}
