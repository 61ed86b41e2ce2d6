/**
 * Keys as the kv proxy stores them. A key is compared byte for byte (SQLite's BINARY collation
 * over UTF-8), never normalised: a store of opaque names hands back from `listKeys` exactly the
 * strings it was given, and two spellings of "é" are two keys, as in every other key-value store.
 */
import { HostProxyError } from "../types.js";

/** The longest key the contract allows (`wit/host/kv.wit`), in UTF-8 bytes. */
export const MAX_KV_KEY_BYTES = 512;

const encoder = new TextEncoder();

/**
 * `key` checked: a well-formed string of 1..`maxBytes` UTF-8 bytes with no NUL. Returns its
 * byte length, which is what the quota counts. Throws `invalid-input`.
 *
 * A lone surrogate has no UTF-8 form: TextEncoder and the driver would both write U+FFFD, so
 * two different JS strings would land on one stored key. A guest cannot send one (the canonical
 * ABI lifts strings from valid UTF-8), but a host caller could. NUL is refused because C string
 * APIs and many tools truncate at it, so what an operator sees would differ from what is stored.
 */
export function checkKvKey(fn: string, key: string, maxBytes: number = MAX_KV_KEY_BYTES): number {
  if (key === "") throw HostProxyError.invalidInput(`kv.${fn}: key must not be empty`);
  return checkText(fn, "key", key, maxBytes);
}

/** A `listKeys` prefix: as a key, except that it may be empty (every key matches ""). */
export function checkKvPrefix(prefix: string, maxBytes: number = MAX_KV_KEY_BYTES): number {
  return checkText("listKeys", "prefix", prefix, maxBytes);
}

/** UTF-8 byte length of a well-formed string. */
export function utf8Length(text: string): number {
  return encoder.encode(text).byteLength;
}

function checkText(fn: string, field: string, text: string, maxBytes: number): number {
  if (!text.isWellFormed()) throw HostProxyError.invalidInput(`kv.${fn}: ${field} must be valid Unicode (it holds a lone surrogate)`);
  if (text.includes("\0")) throw HostProxyError.invalidInput(`kv.${fn}: ${field} must not contain NUL`);
  const bytes = utf8Length(text);
  if (bytes > maxBytes) {
    throw HostProxyError.invalidInput(`kv.${fn}: ${field} is ${bytes} bytes of UTF-8; the limit is ${maxBytes}`);
  }
  return bytes;
}
