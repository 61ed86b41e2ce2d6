/**
 * The wanted files of a gzipped tarball, read into memory under a cap on DECOMPRESSED bytes and
 * a deadline, without blocking the event loop. Nothing is extracted to disk.
 *
 * Why not the `tar` package's Parser: it inflates synchronously on the main thread (a 51 KB gzip
 * bomb held the server for minutes), and after the end-of-archive blocks it keeps concatenating
 * whatever follows into one buffer, so trailing zeros cost quadratic time. Here node:zlib's
 * stream inflates off the main thread chunk by chunk, every chunk is counted before it is read,
 * each block is looked at once, and reading stops at the end-of-archive marker: whatever a bomb
 * holds after it is never inflated.
 */
import { addAbortSignal } from "node:stream";
import { createGunzip } from "node:zlib";
import { InvalidInputError, PluginError } from "../../errors.js";
import { BLOCK, isZeroBlock, parseHeader, parsePax, type TarHeader } from "./tar-blocks.js";

/** A pax or GNU long-name record describes one path: it never needs more than this. */
const MAX_META_BYTES = 64 << 10;
const INFLATE_CHUNK = 64 << 10;
/** Problems listed by name; beyond this they are counted (an archive of 100k links must not make a 10 MB error). */
const MAX_PROBLEMS_LISTED = 20;

export interface UnpackOptions {
  /** The file names wanted (after the one optional top folder), each with its size cap. */
  wanted: ReadonlyMap<string, number>;
  /** Decompressed bytes (headers, padding, every entry) read at most. */
  maxUnpackedBytes: number;
  /** The whole unpack, inflating included. */
  timeoutMs: number;
  /** Where the bytes came from, for messages. */
  origin: string;
  signal?: AbortSignal;
}

export interface Unpacked {
  files: Map<string, Uint8Array>;
  /** Entries refused (a path outside the package, a link, a second copy): all listed at once. */
  problems: string[];
}

/** Inflates and reads `gz`; throws `package_too_large`, `package_timeout`, `package_cancelled` or `invalid_input`. */
export async function unpackTarball(gz: Uint8Array, options: UnpackOptions): Promise<Unpacked> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal === undefined ? deadline : AbortSignal.any([deadline, options.signal]);
  const gunzip = addAbortSignal(signal, createGunzip({ chunkSize: INFLATE_CHUNK }));
  const reader = new TarReader(options);
  let inflated = 0;
  try {
    gunzip.end(Buffer.from(gz.buffer, gz.byteOffset, gz.byteLength));
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      if (inflated > options.maxUnpackedBytes) throw tooLarge(options, `it inflates to more than ${options.maxUnpackedBytes} bytes`);
      if (reader.push(chunk)) break;
    }
  } catch (error) {
    if (deadline.aborted) {
      throw new PluginError("package_timeout", `source ${options.origin}: not unpacked within ${options.timeoutMs} ms; nothing was installed`, { cause: error });
    }
    if (signal.aborted) throw new PluginError("package_cancelled", `source ${options.origin}: unpacking was cancelled; nothing was installed`, { cause: error });
    if (error instanceof PluginError || error instanceof InvalidInputError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidInputError(`source ${options.origin}: not a readable .tgz: ${reason}`, { field: "source", cause: error });
  } finally {
    gunzip.destroy();
  }
  return reader.finish();
}

function tooLarge(options: { origin: string }, why: string): PluginError {
  return new PluginError("package_too_large", `source ${options.origin}: refused: ${why}; a plugin package holds plugin.json and plugin.wasm within their size caps`);
}

interface Body {
  /** Data bytes still to come, then padding to the block boundary. */
  remaining: number;
  padding: number;
  /** Collected data, for an entry that is kept (a wanted file, a pax or long-name record). */
  parts: Buffer[] | undefined;
  done: (data: Buffer) => void;
}

/** Tar blocks in, the wanted files out; each byte is looked at once. */
class TarReader {
  readonly #options: UnpackOptions;
  readonly #files = new Map<string, Uint8Array>();
  readonly #problems: string[] = [];
  #carry: Buffer = Buffer.alloc(0);
  #body: Body | undefined;
  #zeroBlocks = 0;
  #problemCount = 0;
  #ended = false;
  #consumed = 0;
  /** From a pax header or GNU long name, for the next entry. */
  #next: { path?: string; size?: number } = {};

  constructor(options: UnpackOptions) {
    this.#options = options;
  }

  /** Reads `chunk`; true once the end-of-archive marker is read (nothing after it matters). */
  push(chunk: Buffer): boolean {
    let at = 0;
    while (at < chunk.length && !this.#ended) {
      if (this.#body !== undefined) {
        at += this.#readBody(this.#body, chunk.subarray(at));
        continue;
      }
      const need = BLOCK - this.#carry.length;
      if (this.#carry.length === 0 && chunk.length - at >= BLOCK) {
        this.#header(chunk.subarray(at, at + BLOCK));
        at += BLOCK;
      } else {
        const take = chunk.subarray(at, at + need);
        this.#carry = Buffer.concat([this.#carry, take]);
        at += take.length;
        if (this.#carry.length === BLOCK) {
          const block = this.#carry;
          this.#carry = Buffer.alloc(0);
          this.#header(block);
        }
      }
    }
    return this.#ended;
  }

  finish(): Unpacked {
    if (this.#body !== undefined || this.#carry.length > 0) {
      throw new InvalidInputError(`source ${this.#options.origin}: not a readable .tgz: the archive is truncated`, { field: "source" });
    }
    const more = this.#problemCount - this.#problems.length;
    return { files: this.#files, problems: more > 0 ? [...this.#problems, `… and ${more} more`] : this.#problems };
  }

  #readBody(body: Body, bytes: Buffer): number {
    const data = Math.min(body.remaining, bytes.length);
    if (data > 0) body.parts?.push(bytes.subarray(0, data));
    body.remaining -= data;
    const pad = Math.min(body.padding, bytes.length - data);
    body.padding -= pad;
    if (body.remaining === 0 && body.padding === 0) {
      this.#body = undefined;
      body.done(Buffer.concat(body.parts ?? []));
    }
    return data + pad;
  }

  #header(block: Buffer): void {
    if (isZeroBlock(block)) {
      // Two zero blocks end the archive (POSIX.1); one alone is padding some packers leave.
      this.#ended = ++this.#zeroBlocks >= 2;
      return;
    }
    this.#zeroBlocks = 0;
    const header = parseHeader(block);
    if (typeof header === "string") throw new InvalidInputError(`source ${this.#options.origin}: not a readable .tgz: ${header}`, { field: "source" });
    const next = this.#next;
    const meta = header.type === "PaxHeader" || header.type === "GlobalPaxHeader" || header.type === "GnuLongPath" || header.type === "GnuLongLink";
    if (!meta) this.#next = {};
    const entry = meta ? header : { ...header, path: next.path ?? header.path, size: next.size ?? header.size };
    this.#consumed += BLOCK + padded(entry.size);
    // Refused on its declaration: a header that claims gigabytes is not read to find out.
    if (this.#consumed > this.#options.maxUnpackedBytes) throw tooLarge(this.#options, `${entry.path} declares ${entry.size} bytes`);
    if (meta) return this.#expect(entry, MAX_META_BYTES, (data) => this.#meta(entry, data));
    this.#entry(entry);
  }

  /** Pax and long-name records say how to read the next entry; global pax records are ignored. */
  #meta(header: TarHeader, data: Buffer): void {
    if (header.type === "GnuLongPath") this.#next.path = data.toString("utf8").replace(/\0+$/, "");
    if (header.type !== "PaxHeader") return;
    const pax = parsePax(data);
    if (typeof pax === "string") throw new InvalidInputError(`source ${this.#options.origin}: not a readable .tgz: ${pax}`, { field: "source" });
    this.#next = { ...this.#next, ...pax };
  }

  #entry(entry: TarHeader): void {
    const name = entry.path.replace(/^\.\//, "").replace(/^[^/]+\/(?=[^/]+$)/, "");
    const cap = this.#options.wanted.get(name);
    const refused =
      refusal(entry) ??
      (cap === undefined ? undefined : entry.type !== "File" ? `not a regular file (${entry.type})` : this.#files.has(name) ? `a second ${name}` : undefined);
    if (refused !== undefined && ++this.#problemCount <= MAX_PROBLEMS_LISTED) this.#problems.push(`${entry.path.slice(0, 200)}: ${refused}`);
    if (refused !== undefined || cap === undefined) return this.#expect(entry, undefined);
    if (entry.size > cap) throw tooLarge(this.#options, `${entry.path} is ${entry.size} bytes, more than the ${cap} it may have`);
    this.#expect(entry, cap, (data) => this.#files.set(name, new Uint8Array(data)));
  }

  /** The entry's data: kept (at most `cap` bytes) when `done` is given, else skipped. */
  #expect(entry: TarHeader, cap: number | undefined, done?: (data: Buffer) => void): void {
    if (done !== undefined && cap !== undefined && entry.size > cap) throw tooLarge(this.#options, `${entry.path}: a ${entry.size}-byte ${entry.type} record`);
    const body: Body = { remaining: entry.size, padding: padded(entry.size) - entry.size, parts: done === undefined ? undefined : [], done: done ?? (() => undefined) };
    if (body.remaining === 0 && body.padding === 0) return body.done(Buffer.alloc(0));
    this.#body = body;
  }
}

/** Why an entry has no place in a package, or undefined. Nothing is extracted, but the archive that tries is not trusted. */
function refusal(entry: TarHeader): string | undefined {
  const segments = entry.path.split(/[/\\]/);
  if (entry.path.startsWith("/") || /^[A-Za-z]:/.test(entry.path) || segments.includes("..")) return "a path outside the package";
  if (entry.type === "Link" || entry.type === "SymbolicLink") return `a link (${entry.type}); a package holds regular files only`;
  if (entry.type !== "File" && entry.type !== "Directory") return `not a regular file (type ${JSON.stringify(entry.flag)})`;
  return undefined;
}

function padded(size: number): number {
  return Math.ceil(size / BLOCK) * BLOCK;
}
