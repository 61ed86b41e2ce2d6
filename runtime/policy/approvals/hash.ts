import { createHash } from "node:crypto";
import { canonicalJson } from "../../audit/index.js";

/**
 * sha256 hex of the canonical JSON of `value`: what an approval binds to. Canonical so that
 * `{"a":1,"b":2}` and `{"b":2,"a":1}` are one call; throws `InvalidInputError` for values with no
 * single JSON form (NaN, Date, cycles) rather than bind to a guess.
 */
export function argsHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** For text that is already canonical JSON, so it is hashed exactly as stored. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
