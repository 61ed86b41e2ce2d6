/**
 * The canonical ABI's memory side for an AssemblyScript guest: `cabi_realloc` over AssemblyScript's
 * heap, strings in UTF-8, and the ownership rules of the component model spelled out once.
 *
 * Ownership (Component Model, canonical ABI):
 * - Memory the host allocates in the guest through `cabi_realloc` (an export's string and list
 *   arguments, an import's returned strings and lists) belongs to the guest: it is freed here
 *   once read (`takeString`, `takeList`).
 * - Memory the guest hands out with an export's result stays valid until the host calls the
 *   export's post-return function: it is recorded with `keep` and freed by `freeKept`.
 * - Memory the guest lends an import (its arguments) is freed after the import returns (`Lent`).
 * Only raw heap blocks cross the ABI; no AssemblyScript object is ever referenced from them, so the
 * garbage collector never sees a pointer it does not own.
 */

/** The component model's allocator. The heap aligns every block to 16 bytes, enough for any WIT type. */
export function cabi_realloc(old: usize, oldSize: usize, align: usize, newSize: usize): usize {
  if (align > 16) unreachable();
  if (old == 0) return heap.alloc(newSize);
  return heap.realloc(old, newSize);
}

/** Blocks handed out with the current export's result, freed in its post-return. */
const kept = new Array<usize>();

export function keep(ptr: usize): usize {
  kept.push(ptr);
  return ptr;
}

export function freeKept(): void {
  for (let i = 0; i < kept.length; i++) heap.free(unchecked(kept[i]));
  kept.length = 0;
}

/** How many result blocks are waiting for a post-return (a test's leak check reads it). */
export function keptCount(): i32 {
  return kept.length;
}

/** `s` as UTF-8 in a fresh heap block; its pointer and byte length are stored at `at` and `at + 4`. */
export function storeString(at: usize, s: string, blocks: Array<usize>): void {
  const len = String.UTF8.byteLength(s, false);
  const ptr = heap.alloc(len);
  String.UTF8.encodeUnsafe(changetype<usize>(s), s.length, ptr, false);
  blocks.push(ptr);
  store<u32>(at, <u32>ptr);
  store<u32>(at + 4, <u32>len);
}

/** A string the host allocated in the guest: read, then its block freed. */
export function takeString(ptr: usize, len: usize): string {
  const s = String.UTF8.decodeUnsafe(ptr, len, false);
  if (ptr != 0) heap.free(ptr);
  return s;
}

/** The string whose pointer and length are stored at `at`, taken as `takeString` does. */
export function takeStringAt(at: usize): string {
  return takeString(<usize>load<u32>(at), <usize>load<u32>(at + 4));
}

/** A list of strings stored at `at` (pointer, length), taken: every string and the list's block freed. */
export function takeStringListAt(at: usize): string[] {
  const ptr = <usize>load<u32>(at);
  const len = <i32>load<u32>(at + 4);
  const out = new Array<string>(len);
  for (let i = 0; i < len; i++) unchecked((out[i] = takeStringAt(ptr + <usize>i * 8)));
  if (ptr != 0) heap.free(ptr);
  return out;
}

/** Arguments lent to one import call: each string lowered into its own block, all freed after the call. */
export class Lent {
  blocks: Array<usize> = new Array<usize>();
  /** The argument area, big enough for any import's flattened arguments and its return area. */
  area: usize = heap.alloc(128);

  /** Lowers `s`; its pointer and length land at `area + at`. */
  string(at: usize, s: string): void {
    storeString(this.area + at, s, this.blocks);
  }

  ptr(at: usize): usize {
    return <usize>load<u32>(this.area + at);
  }

  len(at: usize): usize {
    return <usize>load<u32>(this.area + at + 4);
  }

  free(): void {
    for (let i = 0; i < this.blocks.length; i++) heap.free(unchecked(this.blocks[i]));
    this.blocks.length = 0;
    heap.free(this.area);
  }
}

/** A guest-side assertion failure (AssemblyScript's `abort`): a trap, which poisons the instance. */
export function trap(message: usize, file: usize, line: u32, column: u32): void {
  unreachable();
}
