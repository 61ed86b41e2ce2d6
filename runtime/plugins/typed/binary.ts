import { PluginError } from "../../errors.js";

/** A bounded cursor over a component binary; every malformed read is one `component_unreadable` error. */
export class BinaryReader {
  offset: number;
  readonly end: number;
  readonly #bytes: Uint8Array;
  readonly #label: string;
  /** What is being read, for errors: "types", "imports". */
  readonly #what: string;

  constructor(bytes: Uint8Array, label: string, start = 0, end = bytes.length, what = "types") {
    this.#bytes = bytes;
    this.#label = label;
    this.offset = start;
    this.end = end;
    this.#what = what;
  }

  /** A reader over the next `size` bytes (a section's content); this one moves past them. */
  sub(size: number): BinaryReader {
    if (this.offset + size > this.end) this.fail("a section runs past its end");
    const reader = new BinaryReader(this.#bytes, this.#label, this.offset, this.offset + size, this.#what);
    this.offset += size;
    return reader;
  }

  done(): boolean {
    return this.offset >= this.end;
  }

  fail(reason: string): never {
    throw new PluginError("component_unreadable", `${this.#label}: cannot read the component's ${this.#what} at byte ${this.offset}: ${reason}`);
  }

  peek(): number {
    if (this.offset >= this.end) this.fail("unexpected end");
    return this.#bytes[this.offset]!;
  }

  byte(): number {
    const b = this.peek();
    this.offset++;
    return b;
  }

  skip(n: number): void {
    if (this.offset + n > this.end) this.fail("unexpected end");
    this.offset += n;
  }

  bytes(n: number): Uint8Array {
    if (this.offset + n > this.end) this.fail("unexpected end");
    const out = this.#bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  /** Signed LEB128 of at most 33 bits (a value type or a type index): only skipped. */
  s33(): void {
    for (let i = 0; i < 5; i++) if ((this.byte() & 0x80) === 0) return;
    this.fail("a number longer than 5 bytes");
  }

  /** Unsigned LEB128, at most 32 bits. */
  u32(): number {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) {
        if (result > 0xffffffff) this.fail("a number larger than 32 bits");
        return result;
      }
    }
    return this.fail("a number longer than 5 bytes");
  }

  /** A vector's length, refused when it could not fit in what is left (each element takes a byte at least). */
  count(): number {
    const n = this.u32();
    if (n > this.end - this.offset) this.fail(`a vector of ${n} elements in ${this.end - this.offset} bytes`);
    return n;
  }

  string(): string {
    const length = this.u32();
    if (this.offset + length > this.end) this.fail("a name runs past its section");
    const raw = this.#bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(raw);
    } catch {
      return this.fail("a name that is not UTF-8");
    }
  }

  /** An import or export name: a plain name (0x00) or one with a version suffix (0x01). */
  externName(): string {
    const form = this.byte();
    if (form !== 0x00 && form !== 0x01) this.fail(`unknown name form 0x${form.toString(16)}`);
    const name = this.string();
    if (form === 0x01) this.string();
    return name;
  }
}

/** Reads a vector: its length, then `read` once per element. */
export function forEach(reader: BinaryReader, read: () => void): void {
  const n = reader.count();
  for (let i = 0; i < n; i++) read();
}
