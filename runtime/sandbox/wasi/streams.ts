/**
 * `wasi:io` (error, poll, streams) as jco's glue takes imported resources: classes whose
 * instances the glue checks with `instanceof` and calls by camelCase method names; a WIT error
 * is thrown as a plain value (never an `Error`, which the glue treats as a trap).
 *
 * Every effect behind a stream is a synchronous bridge call made by its owner (a file, a log
 * sink, a response body), so every pollable is ready at once: nothing here waits on the host.
 */
export const symbolDispose: symbol = (Symbol as { dispose?: symbol }).dispose ?? Symbol.for("dispose");

/** The `wasi:io/error` resource: what the last operation on a stream failed with. */
export class IoError {
  readonly #message: string;
  constructor(message: string) {
    this.#message = message;
  }
  toDebugString(): string {
    return this.#message;
  }
}

/**
 * Everything this host does completes before the call returns, so a pollable is ready at once,
 * except a clock's: it is ready at its deadline and `block` sleeps the worker's thread until
 * then (the call's own deadline still ends the worker).
 */
export class Pollable {
  readonly #deadlineNs: bigint | undefined;
  constructor(deadlineNs?: bigint) {
    this.#deadlineNs = deadlineNs;
  }
  ready(): boolean {
    return this.#deadlineNs === undefined || process.hrtime.bigint() >= this.#deadlineNs;
  }
  remainingNs(): bigint {
    return this.#deadlineNs === undefined ? 0n : this.#deadlineNs - process.hrtime.bigint();
  }
  block(): void {
    if (this.#deadlineNs === undefined) return;
    const waitMs = Number(this.#deadlineNs - process.hrtime.bigint()) / 1e6;
    if (waitMs > 0) Atomics.wait(SLEEP, 0, 0, waitMs);
  }
}

const SLEEP = new Int32Array(new SharedArrayBuffer(4));

/** `poll(list<borrow<pollable>>) -> list<u32>`: all of them are ready. */
export function poll(list: readonly Pollable[]): Uint32Array {
  if (list.length === 0) throw new Error("wasi:io/poll.poll: an empty list would block forever");
  let ready = list.flatMap((p, i) => (p.ready() ? [i] : []));
  if (ready.length === 0) {
    // Every one is a clock: the earliest decides.
    list.reduce((a, b) => (a.remainingNs() <= b.remainingNs() ? a : b)).block();
    ready = list.flatMap((p, i) => (p.ready() ? [i] : []));
  }
  return Uint32Array.from(ready);
}

export type StreamError = { tag: "closed" } | { tag: "last-operation-failed"; val: IoError };

/** Where an input stream's bytes come from: a buffer given at once (a file read, a response body). */
export interface InputSource {
  /** Up to `max` next bytes; empty at the end. */
  take(max: number): Uint8Array;
  done(): boolean;
}

export class InputStream {
  readonly #source: InputSource;
  #open = true;
  constructor(source: InputSource) {
    this.#source = source;
  }
  read(len: bigint): Uint8Array {
    if (!this.#open) throw { tag: "closed" } satisfies StreamError;
    if (this.#source.done()) throw { tag: "closed" } satisfies StreamError;
    return this.#source.take(clampLength(len));
  }
  blockingRead(len: bigint): Uint8Array {
    return this.read(len);
  }
  skip(len: bigint): bigint {
    return BigInt(this.read(len).byteLength);
  }
  blockingSkip(len: bigint): bigint {
    return this.skip(len);
  }
  subscribe(): Pollable {
    return new Pollable();
  }
  [symbolDispose](): void {
    this.#open = false;
  }
}

/** An input stream over bytes held in memory. */
export function bytesSource(bytes: Uint8Array): InputSource {
  let at = 0;
  return {
    take(max) {
      const chunk = bytes.subarray(at, Math.min(bytes.byteLength, at + max));
      at += chunk.byteLength;
      return chunk.slice();
    },
    done: () => at >= bytes.byteLength,
  };
}

/** Where an output stream's bytes go. A sink throws a `StreamError` value to fail a write. */
export interface OutputSink {
  write(bytes: Uint8Array): void;
  /** Makes what was written take effect (a file written back, a log line sent). */
  flush(): void;
  /** Most bytes one `write` may take now. */
  permit(): number;
  close?(): void;
}

/** jco's glue and the WASI spec both cap a blocking write-and-flush at 4096 bytes. */
const BLOCKING_WRITE_LIMIT = 4096;

export class OutputStream {
  readonly #sink: OutputSink;
  #open = true;
  constructor(sink: OutputSink) {
    this.#sink = sink;
  }
  checkWrite(): bigint {
    this.#check();
    return BigInt(this.#sink.permit());
  }
  write(contents: Uint8Array): void {
    this.#check();
    if (contents.byteLength > this.#sink.permit()) throw { tag: "last-operation-failed", val: new IoError("write exceeds the permit of check-write") } satisfies StreamError;
    this.#sink.write(contents);
  }
  blockingWriteAndFlush(contents: Uint8Array): void {
    this.#check();
    if (contents.byteLength > BLOCKING_WRITE_LIMIT) throw { tag: "last-operation-failed", val: new IoError("blocking-write-and-flush takes at most 4096 bytes") } satisfies StreamError;
    this.#sink.write(contents);
    this.#sink.flush();
  }
  flush(): void {
    this.#check();
    this.#sink.flush();
  }
  blockingFlush(): void {
    this.flush();
  }
  writeZeroes(len: bigint): void {
    this.write(new Uint8Array(clampLength(len)));
  }
  blockingWriteZeroesAndFlush(len: bigint): void {
    this.blockingWriteAndFlush(new Uint8Array(clampLength(len)));
  }
  splice(src: InputStream, len: bigint): bigint {
    this.#check();
    const bytes = src.read(BigInt(Math.min(clampLength(len), this.#sink.permit())));
    this.#sink.write(bytes);
    return BigInt(bytes.byteLength);
  }
  blockingSplice(src: InputStream, len: bigint): bigint {
    const n = this.splice(src, len);
    this.#sink.flush();
    return n;
  }
  subscribe(): Pollable {
    return new Pollable();
  }
  [symbolDispose](): void {
    if (!this.#open) return;
    this.#open = false;
    try {
      this.#sink.flush();
    } catch {
      // A drop cannot report; the failure was already recorded by the host call that made it.
    }
    this.#sink.close?.();
  }
  #check(): void {
    if (!this.#open) throw { tag: "closed" } satisfies StreamError;
  }
}

/** A `u64` length as a safe JS number, at most 1 MiB per call (larger asks are served in parts). */
export function clampLength(len: bigint | number): number {
  const n = typeof len === "bigint" ? len : BigInt(Math.max(0, Math.trunc(len)));
  return n > 1_048_576n ? 1_048_576 : Number(n < 0n ? 0n : n);
}

export function ioImports(): Record<string, Record<string, unknown>> {
  return {
    "wasi:io/error": { Error: IoError },
    "wasi:io/poll": { Pollable, poll },
    "wasi:io/streams": { InputStream, OutputStream },
  };
}
