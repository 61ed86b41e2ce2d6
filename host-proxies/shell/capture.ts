/**
 * One output stream kept as head and tail in fixed buffers, whatever the program writes: a
 * `yes` flood costs two buffers and a counter, never memory in proportion to its output.
 *
 * When the middle is dropped, the kept head is cut back to its last line end and the kept tail
 * starts after its first one, so the text shows whole lines around one marker line;
 * `linesDropped` counts the newline-terminated lines removed (a line longer than a buffer is
 * shown in part on the side that kept it).
 */
import type { ExecOutput } from "./types.js";

export const DEFAULT_HEAD_BYTES = 32 * 1024;
export const DEFAULT_TAIL_BYTES = 32 * 1024;

const NEWLINE = 0x0a;

export interface CaptureOptions {
  headBytes?: number;
  tailBytes?: number;
}

export class HeadTailCapture {
  readonly #head: Buffer;
  /** A ring one byte larger than the tail kept: that byte tells whether the tail starts a line. */
  readonly #tail: Buffer;
  readonly #tailSize: number;
  #headLength = 0;
  /** Bytes ever written into the tail ring; the ring holds the last `min(n, size)`. */
  #tailWritten = 0;
  #bytes = 0;
  #newlines = 0;

  constructor(options: CaptureOptions = {}) {
    this.#head = Buffer.alloc(options.headBytes ?? DEFAULT_HEAD_BYTES);
    this.#tailSize = options.tailBytes ?? DEFAULT_TAIL_BYTES;
    this.#tail = Buffer.alloc(this.#tailSize + 1);
  }

  push(chunk: Uint8Array): void {
    this.#bytes += chunk.byteLength;
    this.#newlines += countNewlines(chunk, 0, chunk.byteLength);
    let rest = chunk;
    if (this.#headLength < this.#head.length) {
      const take = Math.min(rest.byteLength, this.#head.length - this.#headLength);
      this.#head.set(rest.subarray(0, take), this.#headLength);
      this.#headLength += take;
      rest = rest.subarray(take);
    }
    if (rest.byteLength > 0) this.#writeTail(rest);
  }

  finish(): ExecOutput {
    const head = this.#head.subarray(0, this.#headLength);
    const tail = this.#tailContents();
    const kept = this.#headLength + tail.length;
    if (kept === this.#bytes) return output(Buffer.concat([head, tail]).toString("utf8"), this.#bytes, 0);
    const lastNl = head.lastIndexOf(NEWLINE);
    const firstNl = tail.indexOf(NEWLINE);
    const headKept = lastNl === -1 ? head : head.subarray(0, lastNl + 1);
    const tailKept = this.#beforeTail() === NEWLINE || firstNl === -1 ? tail : tail.subarray(firstNl + 1);
    const dropped = this.#bytes - headKept.length - tailKept.length;
    const lines = this.#newlines - countNewlines(headKept, 0, headKept.length) - countNewlines(tailKept, 0, tailKept.length);
    const marker = `${headKept.length > 0 && headKept[headKept.length - 1] !== NEWLINE ? "\n" : ""}[… ${lines} lines (${dropped} bytes) dropped …]\n`;
    return output(`${headKept.toString("utf8")}${marker}${tailKept.toString("utf8")}`, this.#bytes, lines);
  }

  #writeTail(data: Uint8Array): void {
    const ring = this.#tail.length;
    // Only the last `ring` bytes of a big chunk can survive in the ring.
    const keep = data.byteLength > ring ? data.subarray(data.byteLength - ring) : data;
    this.#tailWritten += data.byteLength - keep.byteLength;
    let at = this.#tailWritten % ring;
    let src = keep;
    while (src.byteLength > 0) {
      const n = Math.min(src.byteLength, ring - at);
      this.#tail.set(src.subarray(0, n), at);
      src = src.subarray(n);
      at = (at + n) % ring;
    }
    this.#tailWritten += keep.byteLength;
  }

  /** The last `tailSize` bytes written to the tail, in order. */
  #tailContents(): Buffer {
    const ring = this.#tail.length;
    const length = Math.min(this.#tailWritten, this.#tailSize);
    const start = (this.#tailWritten - length) % ring;
    const end = start + length;
    return end <= ring ? Buffer.from(this.#tail.subarray(start, end)) : Buffer.concat([this.#tail.subarray(start), this.#tail.subarray(0, end - ring)]);
  }

  /** The byte just before the kept tail, when the tail has dropped some. */
  #beforeTail(): number | undefined {
    if (this.#tailWritten <= this.#tailSize) return undefined;
    return this.#tail[(this.#tailWritten - this.#tailSize - 1) % this.#tail.length];
  }
}

function output(text: string, bytes: number, linesDropped: number): ExecOutput {
  return { text, bytes: BigInt(bytes), linesDropped: BigInt(linesDropped) };
}

function countNewlines(data: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (data[i] === NEWLINE) n++;
  return n;
}
