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

/** A `list<u8>` stored at `at` (pointer, length), taken: copied out and its block freed. */
export function takeBytesAt(at: usize): Uint8Array {
  const ptr = <usize>load<u32>(at);
  const len = <i32>load<u32>(at + 4);
  const out = new Uint8Array(len);
  memory.copy(out.dataStart, ptr, <usize>len);
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

  /** A zeroed block of `size` bytes of its own (a spilled argument tuple, a large return area), freed with the rest. */
  block(size: usize): usize {
    const ptr = heap.alloc(size);
    memory.fill(ptr, 0, size);
    this.blocks.push(ptr);
    return ptr;
  }

  /** Lowers a `list<u8>` at `to` (an absolute address: `area + n` or inside a `block`). */
  bytesTo(to: usize, data: Uint8Array): void {
    const len = <usize>data.length;
    const ptr = heap.alloc(len);
    memory.copy(ptr, data.dataStart, len);
    this.blocks.push(ptr);
    store<u32>(to, <u32>ptr);
    store<u32>(to + 4, <u32>len);
  }

  /** Lowers a `string` at the absolute address `to`. */
  stringTo(to: usize, s: string): void {
    storeString(to, s, this.blocks);
  }

  /** Lowers a `list<string>` at `to`: its elements' block, and each string's own. */
  stringListTo(to: usize, list: string[]): void {
    const n = <usize>list.length;
    const ptr = heap.alloc(n * 8);
    this.blocks.push(ptr);
    for (let i: usize = 0; i < n; i++) storeString(ptr + i * 8, unchecked(list[<i32>i]), this.blocks);
    store<u32>(to, <u32>ptr);
    store<u32>(to + 4, <u32>n);
  }

  /** Lowers an `option<list<string>>` at `to`: none when `list` is null. */
  optionalStringListTo(to: usize, list: string[] | null): void {
    store<u8>(to, list == null ? 0 : 1);
    if (list != null) this.stringListTo(to + 4, list);
  }

  /** Lowers an `option<u32>` at `to`: none when `value` is negative. */
  optionalU32To(to: usize, value: i64): void {
    store<u8>(to, value < 0 ? 0 : 1);
    if (value >= 0) store<u32>(to + 4, <u32>value);
  }

  /** Lowers an `option<enum>` (or `option<u8>`) at `to`: none when `value` is negative. */
  optionalU8To(to: usize, value: i32): void {
    store<u8>(to, value < 0 ? 0 : 1);
    if (value >= 0) store<u8>(to + 1, <u8>value);
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
