import * as crypto from "node:crypto";
import { canonicalJson } from "./json.js";
import { BODY_COLUMNS } from "./schema.js";
import type { BodyColumn, RecordBody } from "./schema.js";

/** The prev_hash of the first record. */
export const GENESIS_HASH = "0".repeat(64);

const DOMAIN = "clawhive-audit-v1";

/**
 * The canonical text of a record's content. Built from the values exactly as stored, so
 * `verify()` recomputes it from a row without knowing how the writer produced them.
 */
export function bodyText(body: RecordBody): string {
  // Equal to canonicalJson of the body object, written directly: the columns are fixed and their
  // values are only strings, finite numbers and null, so the keys can be sorted once.
  let out = "{";
  for (let i = 0; i < SORTED_COLUMNS.length; i++) {
    const column = SORTED_COLUMNS[i] as BodyColumn;
    const value = body[column];
    if (value === undefined) throw new TypeError(`audit record body: column ${column} is missing`);
    if (typeof value === "number" && !Number.isFinite(value)) return canonicalJson(body);
    out += (KEY_PREFIXES[i] as string) + (value === null ? "null" : JSON.stringify(value));
  }
  return `${out}}`;
}

/**
 * `bodyText` of a body whose `intent_seq` is known only when it is chained: the text on either
 * side of that value, serialised once, so chaining joins them around the seq instead of
 * serialising the body again. `intent_seq` is neither the first nor the last key, and `,"` never
 * occurs inside a JSON string (its quotes are escaped), so the marker is found exactly once.
 */
export function bodyTextAround(body: RecordBody): { readonly before: string; readonly after: string } {
  const text = bodyText({ ...body, intent_seq: 0 });
  const at = text.indexOf(INTENT_SEQ_ZERO);
  if (at === -1) throw new TypeError("audit record body: intent_seq is not where the canonical text puts it");
  return { before: text.slice(0, at + INTENT_SEQ_KEY.length), after: text.slice(at + INTENT_SEQ_ZERO.length - 1) };
}

const INTENT_SEQ_KEY = ',"intent_seq":';
const INTENT_SEQ_ZERO = `${INTENT_SEQ_KEY}0,`;

const SORTED_COLUMNS: readonly BodyColumn[] = [...BODY_COLUMNS].sort();
const KEY_PREFIXES = SORTED_COLUMNS.map((column, i) => `${i === 0 ? "" : ","}${JSON.stringify(column)}:`);

/**
 * sha256 over the domain tag, the record's seq, the previous record's hash and its canonical
 * content, newline-separated (seq is digits and the hash hex, so the framing is unambiguous).
 * Covering seq means moving a record to another position changes its hash; covering prev_hash
 * chains it to everything before.
 */
export function chainHash(seq: number, prevHash: string, body: string): string {
  return sha256Hex(`${DOMAIN}\n${seq}\n${prevHash}\n${body}`);
}

// The one-shot `crypto.hash` (Node ≥ 20.12) skips the Hash object per record: a third of the
// hashing cost when `verify()` hashes a whole chain. Same digest either way.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;
const sha256Hex: (text: string) => string =
  typeof oneShot === "function" ? (text) => oneShot("sha256", text, "hex") : (text) => crypto.createHash("sha256").update(text).digest("hex");
