/**
 * Text too large for one statement (`MAX_STATEMENT_BYTES`), as UTF-8 parts a statement each.
 * The rooms keep their own part tables (keyed by what the value belongs to); these are the
 * pieces they share: where to cut, and how to read the parts back a statement at a time.
 */
import { allRows } from "./pages.js";
import type { Statement, Store } from "./types.js";

/** Bytes in one part: half a statement's bound, so a part and its keys always fit. */
export const CHUNK_BYTES = 512 * 1024;

/** `text` as UTF-8 parts of at most `size` bytes (a cut may fall inside a character: join the bytes, not the texts). */
export function utf8Parts(text: string, size = CHUNK_BYTES): Uint8Array[] {
  const bytes = Buffer.from(text, "utf8");
  const parts: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; at += size) parts.push(bytes.subarray(at, at + size));
  return parts;
}

/** The text whose parts these are, in order. */
export function joinUtf8(parts: readonly Uint8Array[]): string {
  return Buffer.concat(parts.map((part) => Buffer.from(part.buffer, part.byteOffset, part.byteLength))).toString("utf8");
}

/**
 * Parts read one per statement (each is up to `CHUNK_BYTES`): `page(after)` selects the parts
 * numbered after `after` (-1 at first) in order, as columns `part` (its number) and `bytes`.
 */
export async function readParts(store: Pick<Store, "execute">, page: (after: number, limit: number) => Statement): Promise<string> {
  const rows = await allRows(store, { page: (after, limit) => page(after === null ? -1 : Number(after), limit), key: (row) => row.part as number, pageSize: 1 });
  return joinUtf8(rows.map((row) => row.bytes as Uint8Array));
}

/**
 * The longest prefix of `text` within `maxBytes` UTF-8 bytes, with a marker saying how much was
 * left out and where the whole is: for a view that must stay small (a list of runs).
 */
export function previewUtf8(text: string, maxBytes: number, whole: string): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.byteLength <= maxBytes) return text;
  let end = maxBytes;
  // Back over UTF-8 continuation bytes (10xxxxxx) to a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString("utf8")}… [${bytes.byteLength - end} more bytes: ${whole}]`;
}
