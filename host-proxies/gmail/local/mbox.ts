/**
 * Reading an mbox file as one label, mboxrd flavour: a message starts after a line beginning
 * `From ` (at the start of the file or after `\n`); body lines written as `>From `, `>>From `, …
 * lose one `>` (a reader of plain mboxo files misreads only lines that really began `>From `).
 * The blank line a writer puts before the next separator is not part of the message.
 * Read state comes from the `Status:` header (`R` = read) and `X-Status:` (`F` = flagged) that
 * mutt, Thunderbird and dovecot write.
 *
 * Message id: `localId("mbox", label, sha256 of the message bytes, n)` where n counts earlier
 * identical messages in the file: it survives other messages being added or removed (offsets
 * do not), and is the same for the same bytes in the same label.
 */
import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import type { LocalEntry } from "./entry.js";
import { localId } from "./entry.js";
import { readCapped } from "./maildir.js";

export interface MboxSource {
  label: string;
  path: string;
}

/** One message cut out of an mbox: unescaped bytes, its separator line, its position. */
export interface MboxMessage {
  bytes: Buffer;
  fromLine: string;
}

/** Splits mboxrd bytes into messages. Bytes before the first separator are ignored. */
export function splitMbox(data: Buffer): MboxMessage[] {
  const text = data.toString("latin1");
  const starts: number[] = [];
  const separator = /(?:^|\n)From /g;
  for (let m = separator.exec(text); m !== null; m = separator.exec(text)) starts.push(m.index + (m[0].startsWith("\n") ? 1 : 0));
  return starts.map((start, i) => {
    const lineEnd = text.indexOf("\n", start);
    const end = starts[i + 1] ?? text.length;
    if (lineEnd === -1 || lineEnd >= end) return { fromLine: text.slice(start, end).trimEnd(), bytes: Buffer.alloc(0) };
    let body = text.slice(lineEnd + 1, end);
    if (body.endsWith("\n\n")) body = body.slice(0, -1);
    return { fromLine: text.slice(start, lineEnd).replace(/\r$/, ""), bytes: Buffer.from(unescapeMboxrd(body), "latin1") };
  });
}

/** mboxrd: `>From ` → `From `, `>>From ` → `>From `, at the start of a line. */
export function unescapeMboxrd(body: string): string {
  return body.replace(/(^|\n)>(>*From )/g, "$1$2");
}

/** The inverse, for writers (tests build mbox files with it). */
export function escapeMboxrd(body: string): string {
  return body.replace(/(^|\n)(>*From )/g, "$1>$2");
}

/** The delivery time written on a separator line (`From sender Sat Jul 12 20:11:13 1997`), read as UTC. */
export function fromLineDate(fromLine: string): number {
  const rest = fromLine.replace(/^From \S*\s+/, "");
  const ms = Date.parse(`${rest} UTC`);
  return Number.isNaN(ms) ? 0 : ms;
}

/** The entries of one mbox file. Throws `RangeError` when the file is larger than `maxBytes`. */
export async function mboxEntries(source: MboxSource, options: { maxBytes: number; firstOrder?: number }): Promise<LocalEntry[]> {
  const { bytes, truncated } = await readCapped(source.path, options.maxBytes);
  if (truncated) throw new RangeError(`${source.path}: mbox larger than ${options.maxBytes} bytes`);
  const seen = new Map<string, number>();
  return splitMbox(bytes).map((message, i) => {
    const digest = createHash("sha256").update(message.bytes).digest("hex");
    const n = seen.get(digest) ?? 0;
    seen.set(digest, n + 1);
    const head = headerBlock(message.bytes);
    return {
      id: localId("mbox", source.label, digest, String(n)),
      label: source.label,
      unread: !/^Status:[ \t]*\S*R/im.test(head),
      starred: /^X-Status:[ \t]*\S*F/im.test(head),
      deliveredMs: fromLineDate(message.fromLine),
      order: (options.firstOrder ?? 0) + i,
      contentKey: `mbox\0${digest}`,
      read: async (maxBytes) => ({ bytes: message.bytes.subarray(0, maxBytes), truncated: message.bytes.length > maxBytes }),
    };
  });
}

/** The mbox file's identity for caching its split: path, size and modification time. */
export async function mboxVersion(path: string): Promise<string> {
  const s = await stat(path);
  return `${path}\0${s.size}\0${s.mtimeMs}`;
}

function headerBlock(bytes: Buffer): string {
  const text = bytes.subarray(0, 64 * 1024).toString("latin1");
  const end = text.search(/\r?\n\r?\n/);
  return end === -1 ? text : text.slice(0, end);
}
