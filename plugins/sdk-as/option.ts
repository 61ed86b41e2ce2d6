/**
 * `option<string>` and `option<u32>` in the canonical ABI's memory layout (the case byte, then the
 * payload at +4): lowered for an import's arguments, lifted and taken from its results.
 */
import { storeString, takeStringAt } from "./abi";

/** Stores `option<string>` at `at` (12 bytes); the string's block joins `blocks`. */
export function storeOptionString(at: usize, s: string | null, blocks: Array<usize>): void {
  if (s == null) {
    store<u8>(at, 0);
    store<u32>(at + 4, 0);
    store<u32>(at + 8, 0);
    return;
  }
  store<u8>(at, 1);
  storeString(at + 4, s, blocks);
}

/** Stores `option<u32>` at `at` (8 bytes); a negative `v` is none. */
export function storeOptionU32(at: usize, v: i64): void {
  store<u8>(at, v >= 0 ? 1 : 0);
  store<u32>(at + 4, v >= 0 ? <u32>v : 0);
}

/** Takes the `option<string>` stored at `at` (its block freed), null for none. */
export function takeOptionStringAt(at: usize): string | null {
  return load<u8>(at) != 0 ? takeStringAt(at + 4) : null;
}

/** Reads the `option<u32>` stored at `at`; -1 for none. */
export function loadOptionU32(at: usize): i64 {
  return load<u8>(at) != 0 ? <i64>load<u32>(at + 4) : -1;
}
