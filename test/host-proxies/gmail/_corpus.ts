/**
 * The mailbox every gmail test reads, built from the real fixtures in test/fixtures/mail/:
 *
 * | label        | where (local backend)              | messages                                   |
 * |--------------|------------------------------------|--------------------------------------------|
 * | INBOX        | the fixture Maildir, copied        | nodemailer (new, unread), gmail-reply (S), |
 * |              |                                    | yahoo (RS), gmail-alternative (FS)         |
 * | Work/Reports | `.Work.Reports/cur/…:2,S`          | pdf-attachment                             |
 * | Workshop     | `.Workshop/cur/…:2,S`              | apache-list-reply (latin-1 From)           |
 * | Secret       | `.Secret/cur/…:2,` (unread)        | SECRET_PARENT: the message the apache one  |
 * |              |                                    | replies to (same thread), HTML only        |
 * | Lists        | lists.mbox (mboxrd, built here)    | pdf-attachment again, FROM_LINES (unread)  |
 *
 * The two synthetic messages are the only mail written here: a thread that crosses a grant
 * and body lines starting `From ` need them, and no fixture has either.
 */
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const MAIL_FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/mail/", import.meta.url));
export const GMAIL_DISCOVERY = fileURLToPath(new URL("../../../../test/fixtures/gmail-api/gmail-v1-discovery.json", import.meta.url));

/** Test "now": a week after the newest fixture (nodemailer, 2016-10-13T11:39:48Z). */
export const NOW = Date.UTC(2016, 9, 20);

export const SECRET_PARENT = [
  "From: Marc Slemko <marcs@znep.com>",
  "To: new-httpd@apache.org",
  "Subject: Re: PUT method",
  "Date: Sat, 12 Jul 1997 13:59:00 -0600",
  "Message-ID: <Pine.BSF.3.95q.970712135859.28530B-100000@valis.worldgate.com>",
  "MIME-Version: 1.0",
  "Content-Type: text/html; charset=utf-8",
  "",
  "<html><body><p>The secret plan: run the server as <b>root</b> &amp; hope.</p></body></html>",
  "",
].join("\r\n");

export const FROM_LINES = [
  "From: Mbox Writer <writer@example.org>",
  "To: reader@example.org",
  "Subject: Lines that start with From",
  "Date: Tue, 01 Mar 2016 10:00:00 +0000",
  "Message-ID: <from-lines@example.org>",
  "",
  "From the start of this line, an mbox writer must escape.",
  ">From here too, one level deeper.",
  "Last line.",
  "",
].join("\n");

/** One message of the corpus, as both backends must show it. */
export interface CorpusMessage {
  /** Fixture file name or synthetic name. */
  name: string;
  bytes: Buffer;
  label: string;
  unread: boolean;
  starred: boolean;
}

function fixture(name: string): Buffer {
  return readFileSync(join(MAIL_FIXTURES, name));
}

/** The fixture Maildir's own messages, flags read from their names. */
function inbox(): CorpusMessage[] {
  const out: CorpusMessage[] = [];
  for (const sub of ["new", "cur"]) {
    for (const file of readdirSync(join(MAIL_FIXTURES, "maildir", sub)).sort()) {
      if (file.startsWith(".")) continue;
      const flags = sub === "cur" ? (file.split(":2,")[1] ?? "") : "";
      out.push({ name: `maildir/${sub}/${file}`, bytes: fixture(join("maildir", sub, file)), label: "INBOX", unread: !flags.includes("S"), starred: flags.includes("F") });
    }
  }
  return out;
}

export function corpus(): CorpusMessage[] {
  return [
    ...inbox(),
    { name: "pdf-attachment-base64.eml", bytes: fixture("pdf-attachment-base64.eml"), label: "Work/Reports", unread: false, starred: false },
    { name: "apache-list-reply-latin1-from.eml", bytes: fixture("apache-list-reply-latin1-from.eml"), label: "Workshop", unread: false, starred: false },
    { name: "secret-parent", bytes: Buffer.from(SECRET_PARENT, "utf8"), label: "Secret", unread: true, starred: false },
    // No `Status:` header: never read, as in a freshly delivered mbox.
    { name: "pdf-attachment-base64.eml", bytes: fixture("pdf-attachment-base64.eml"), label: "Lists", unread: true, starred: false },
    { name: "from-lines", bytes: Buffer.from(FROM_LINES, "utf8"), label: "Lists", unread: true, starred: false },
  ];
}

/** mboxrd (written independently of the reader under test): `>`-escape `>*From ` lines, blank line after each. */
export function mboxrd(messages: ReadonlyArray<{ bytes: Buffer; fromLine: string }>): Buffer {
  const parts = messages.map(({ bytes, fromLine }) => {
    let body = bytes.toString("latin1").split("\n").map((line) => (/^>*From /.test(line) ? `>${line}` : line)).join("\n");
    if (!body.endsWith("\n")) body += "\n";
    return `${fromLine}\n${body}\n`;
  });
  return Buffer.from(parts.join(""), "latin1");
}

/** The fixtures are read-only; their copies must not be (tests rename files to change flags). */
function writable(path: string): void {
  chmodSync(path, statSync(path).isDirectory() ? 0o755 : 0o644);
  if (statSync(path).isDirectory()) for (const name of readdirSync(path)) writable(join(path, name));
}

export interface LocalMailbox {
  root: string;
  mboxPath: string;
  /** Removes the temp directory. */
  remove(): void;
}

/** The corpus laid out as a Maildir++ tree plus `lists.mbox`, in a fresh temp directory. */
export function writeLocalMailbox(): LocalMailbox {
  const base = mkdtempSync(join(tmpdir(), "clawhive-gmail-"));
  const root = join(base, "Maildir");
  cpSync(join(MAIL_FIXTURES, "maildir"), root, { recursive: true });
  writable(root);
  const folder = (dir: string, file: string, bytes: Buffer) => {
    for (const sub of ["cur", "new", "tmp"]) mkdirSync(join(root, dir, sub), { recursive: true });
    writeFileSync(join(root, dir, "cur", file), bytes);
  };
  const all = corpus();
  const find = (label: string) => all.filter((m) => m.label === label);
  folder(".Work.Reports", "1401904200.M5P1000.fixtures:2,S", find("Work/Reports")[0]?.bytes ?? Buffer.alloc(0));
  folder(".Workshop", "868738273.M6P1000.fixtures:2,S", find("Workshop")[0]?.bytes ?? Buffer.alloc(0));
  folder(".Secret", "868715940.M7P1000.fixtures:2,", find("Secret")[0]?.bytes ?? Buffer.alloc(0));
  const mboxPath = join(base, "lists.mbox");
  const dates = ["Wed Jun  4 17:50:00 2014", "Tue Mar  1 10:00:00 2016"];
  writeFileSync(mboxPath, mboxrd(find("Lists").map((m, i) => ({ bytes: m.bytes, fromLine: `From sender@example.org ${dates[i] ?? ""}` }))));
  return { root, mboxPath, remove: () => rmSync(base, { recursive: true, force: true }) };
}
