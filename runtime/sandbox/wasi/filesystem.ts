/**
 * `wasi:filesystem` of one instance: the preopens are the run's fs mounts, and every operation
 * is a `clawhive:host/fs` call on the main thread, so the fs proxy's canonicaliser (symlinks,
 * `..`, special files), deny list, the policy and the audit decide each one, exactly as for a
 * plugin calling the fs proxy itself. Nothing here touches the worker's filesystem.
 *
 * Paths are resolved lexically against the descriptor first: an absolute path, or `..` that
 * climbs above the preopen, is refused here (`not-permitted`) before any host call, as WASI
 * requires; the proxy then refuses whatever else escapes (a symlink) and audits it.
 */
import { createHash } from "node:crypto";
import type { HostResponse } from "../protocol.js";
import type { WasiInstanceContext } from "./context.js";
import { bytesSource, InputStream, OutputStream, symbolDispose } from "./streams.js";

type DescriptorType = "directory" | "regular-file" | "symbolic-link" | "unknown";
interface HostStat {
  kind: "file" | "directory" | "symlink" | "other";
  size: bigint;
  modifiedMs: bigint;
}
/** The WASI error codes this host gives, thrown as values (the glue lowers them as the error case). */
type ErrorCode = "file-too-large" | "access" | "not-permitted" | "no-entry" | "exist" | "not-directory" | "is-directory" | "invalid" | "io" | "not-empty" | "name-too-long" | "unsupported" | "bad-descriptor" | "read-only";

/**
 * Largest file a descriptor holds in the worker (its bytes are kept to serve offsets): an offset
 * or size past it is `file-too-large`, never an allocation that could exhaust the worker. The
 * fs proxy's own read and write caps apply below it.
 */
export const MAX_WASI_FILE_BYTES = 64 * 1024 * 1024;

const KIND_TYPES: Record<HostStat["kind"], DescriptorType> = { file: "regular-file", directory: "directory", symlink: "symbolic-link", other: "unknown" };

/** A host call's error, as a WASI error code (the proxy's own message stays in the audit). */
function errorCode(error: unknown): ErrorCode {
  const e = error as { tag?: string; val?: unknown };
  if (e?.tag === "denied") return "access";
  if (e?.tag === "not-found") return "no-entry";
  if (e?.tag === "invalid-input") {
    const text = String(e.val);
    if (text.includes("already exists")) return "exist";
    if (text.includes("is a directory")) return "is-directory";
    if (text.includes("not a directory")) return "not-directory";
    if (text.includes("not empty")) return "not-empty";
    if (text.includes("too long")) return "name-too-long";
    return "invalid";
  }
  return "io";
}

interface Flags {
  read?: boolean;
  write?: boolean;
  mutateDirectory?: boolean;
}

/** One instance's filesystem: its bridge, and what every descriptor of it shares. */
class Filesystem {
  constructor(readonly context: WasiInstanceContext) {}

  call(fn: string, args: unknown[]): unknown {
    const response: HostResponse = this.context.hostCall("fs", fn, args);
    if (!response.ok) throw errorCode(response.error);
    return response.value;
  }

  stat(path: string): HostStat | undefined {
    try {
      return this.call("stat", [path]) as HostStat;
    } catch (code) {
      if (code === "no-entry") return undefined;
      throw code;
    }
  }
}

export class Descriptor {
  readonly #fs: Filesystem;
  readonly #root: string;
  readonly #path: string;
  readonly #type: DescriptorType;
  readonly #flags: Flags;
  /** A file's bytes once read or written through this descriptor; written back on flush. */
  #content: Uint8Array | undefined;
  #dirty = false;

  constructor(fs: Filesystem, root: string, path: string, type: DescriptorType, flags: Flags) {
    this.#fs = fs;
    this.#root = root;
    this.#path = path;
    this.#type = type;
    this.#flags = flags;
  }

  /** `path` relative to this descriptor, as a guest path inside its preopen; throws `not-permitted` when it escapes. */
  #resolve(path: string): string {
    if (this.#type !== "directory") throw "not-directory" satisfies ErrorCode;
    if (path.startsWith("/") || path.includes("\0")) throw "not-permitted" satisfies ErrorCode;
    const parts = this.#path.split("/").filter(Boolean);
    const floor = this.#root.split("/").filter(Boolean).length;
    for (const part of path.split("/")) {
      if (part === "" || part === ".") continue;
      if (part === "..") {
        if (parts.length <= floor) throw "not-permitted" satisfies ErrorCode;
        parts.pop();
      } else parts.push(part);
    }
    return `/${parts.join("/")}`;
  }

  #file(): Uint8Array {
    if (this.#type === "directory") throw "is-directory" satisfies ErrorCode;
    this.#content ??= this.#fs.call("read", [this.#path]) as Uint8Array;
    return this.#content;
  }

  #writeAt(bytes: Uint8Array, offset: number): void {
    if (!this.#flags.write) throw "bad-descriptor" satisfies ErrorCode;
    if (!Number.isSafeInteger(offset) || offset + bytes.byteLength > MAX_WASI_FILE_BYTES) throw "file-too-large" satisfies ErrorCode;
    const old = this.#file();
    const next = new Uint8Array(Math.max(old.byteLength, offset + bytes.byteLength));
    next.set(old);
    next.set(bytes, offset);
    this.#content = next;
    this.#dirty = true;
  }

  #flush(): void {
    if (!this.#dirty || !this.#content) return;
    this.#dirty = false;
    this.#fs.call("write", [this.#path, this.#content]);
  }

  readViaStream(offset: bigint): InputStream {
    if (!this.#flags.read) throw "bad-descriptor" satisfies ErrorCode;
    return new InputStream(bytesSource(this.#file().subarray(Number(offset))));
  }
  writeViaStream(offset: bigint): OutputStream {
    let at = Number(offset);
    return new OutputStream({
      permit: () => 65536,
      write: (bytes) => {
        this.#writeAt(bytes, at);
        at += bytes.byteLength;
      },
      flush: () => this.#flushOrStreamError(),
    });
  }
  appendViaStream(): OutputStream {
    return new OutputStream({
      permit: () => 65536,
      write: (bytes) => this.#writeAt(bytes, this.#file().byteLength),
      flush: () => this.#flushOrStreamError(),
    });
  }
  #flushOrStreamError(): void {
    try {
      this.#flush();
    } catch (code) {
      throw { tag: "closed" };
    }
  }
  advise(): void {}
  syncData(): void {
    this.#flush();
  }
  sync(): void {
    this.#flush();
  }
  getFlags(): Flags {
    return { ...this.#flags };
  }
  getType(): DescriptorType {
    return this.#type;
  }
  setSize(size: bigint): void {
    if (!this.#flags.write) throw "bad-descriptor" satisfies ErrorCode;
    if (size > BigInt(MAX_WASI_FILE_BYTES)) throw "file-too-large" satisfies ErrorCode;
    const old = this.#file();
    const next = new Uint8Array(Number(size));
    next.set(old.subarray(0, next.byteLength));
    this.#content = next;
    this.#dirty = true;
    this.#flush();
  }
  setTimes(): void {
    throw "unsupported" satisfies ErrorCode;
  }
  read(length: bigint, offset: bigint): [Uint8Array, boolean] {
    if (!this.#flags.read) throw "bad-descriptor" satisfies ErrorCode;
    const content = this.#file();
    const start = Math.min(Number(offset), content.byteLength);
    const end = Math.min(content.byteLength, start + Math.min(Number(length), 1_048_576));
    return [content.slice(start, end), end >= content.byteLength];
  }
  write(buffer: Uint8Array, offset: bigint): bigint {
    this.#writeAt(buffer, Number(offset));
    this.#flush();
    return BigInt(buffer.byteLength);
  }
  readDirectory(): DirectoryEntryStream {
    if (this.#type !== "directory") throw "not-directory" satisfies ErrorCode;
    const entries = this.#fs.call("listDir", [this.#path]) as Array<{ name: string; kind: HostStat["kind"] }>;
    return new DirectoryEntryStream(entries.map((e) => ({ type: KIND_TYPES[e.kind] ?? "unknown", name: e.name })));
  }
  createDirectoryAt(path: string): void {
    this.#fs.call("mkdir", [this.#resolve(path)]);
  }
  stat(): Record<string, unknown> {
    return descriptorStat(this.#fs.call("stat", [this.#path]) as HostStat);
  }
  statAt(_pathFlags: unknown, path: string): Record<string, unknown> {
    return descriptorStat(this.#fs.call("stat", [this.#resolve(path)]) as HostStat);
  }
  setTimesAt(): void {
    throw "unsupported" satisfies ErrorCode;
  }
  linkAt(): void {
    throw "not-permitted" satisfies ErrorCode;
  }
  openAt(_pathFlags: unknown, path: string, open: { create?: boolean; directory?: boolean; exclusive?: boolean; truncate?: boolean }, flags: Flags): Descriptor {
    const target = this.#resolve(path);
    let stat = this.#fs.stat(target);
    if (stat && open.exclusive && open.create) throw "exist" satisfies ErrorCode;
    if (!stat) {
      if (!open.create || open.directory) throw "no-entry" satisfies ErrorCode;
      this.#fs.call("write", [target, new Uint8Array(0)]);
      stat = { kind: "file", size: 0n, modifiedMs: 0n };
    } else if (open.truncate) {
      if (stat.kind === "directory") throw "is-directory" satisfies ErrorCode;
      this.#fs.call("write", [target, new Uint8Array(0)]);
    }
    if (stat.kind === "symlink") {
      // Never followed: asked of the proxy all the same, so the refusal is decided and audited there.
      this.#fs.call("read", [target]);
      throw "not-permitted" satisfies ErrorCode;
    }
    if (open.directory && stat.kind !== "directory") throw "not-directory" satisfies ErrorCode;
    if (stat.kind === "directory" && flags.write) throw "is-directory" satisfies ErrorCode;
    return new Descriptor(this.#fs, this.#root, target, KIND_TYPES[stat.kind] ?? "unknown", { ...flags });
  }
  readlinkAt(): string {
    // The proxy never follows a link, and its target would be a host path.
    throw "not-permitted" satisfies ErrorCode;
  }
  removeDirectoryAt(path: string): void {
    const target = this.#resolve(path);
    if (this.#fs.stat(target)?.kind !== "directory") throw "not-directory" satisfies ErrorCode;
    this.#fs.call("remove", [target]);
  }
  renameAt(): void {
    throw "unsupported" satisfies ErrorCode;
  }
  symlinkAt(): void {
    throw "not-permitted" satisfies ErrorCode;
  }
  unlinkFileAt(path: string): void {
    const target = this.#resolve(path);
    if (this.#fs.stat(target)?.kind === "directory") throw "is-directory" satisfies ErrorCode;
    this.#fs.call("remove", [target]);
  }
  isSameObject(other: Descriptor): boolean {
    return other instanceof Descriptor && other.#path === this.#path;
  }
  metadataHash(): { lower: bigint; upper: bigint } {
    return hashOf(this.#path, this.#fs.call("stat", [this.#path]) as HostStat);
  }
  metadataHashAt(_pathFlags: unknown, path: string): { lower: bigint; upper: bigint } {
    const target = this.#resolve(path);
    return hashOf(target, this.#fs.call("stat", [target]) as HostStat);
  }
  [symbolDispose](): void {
    try {
      this.#flush();
    } catch {
      // A drop cannot report; the refusal is already in the audit.
    }
  }
}

export class DirectoryEntryStream {
  readonly #entries: Array<{ type: DescriptorType; name: string }>;
  constructor(entries: Array<{ type: DescriptorType; name: string }>) {
    this.#entries = entries;
  }
  readDirectoryEntry(): { type: DescriptorType; name: string } | undefined {
    return this.#entries.shift();
  }
}

function descriptorStat(stat: HostStat): Record<string, unknown> {
  const ms = BigInt(stat.modifiedMs);
  const time = { seconds: ms / 1000n, nanoseconds: Number(ms % 1000n) * 1_000_000 };
  return { type: KIND_TYPES[stat.kind] ?? "unknown", linkCount: 1n, size: BigInt(stat.size), dataAccessTimestamp: undefined, dataModificationTimestamp: time, statusChangeTimestamp: undefined };
}

function hashOf(path: string, stat: HostStat): { lower: bigint; upper: bigint } {
  const digest = createHash("sha256").update(`${path}\0${stat.size}\0${stat.modifiedMs}`).digest();
  return { lower: digest.readBigUInt64LE(0), upper: digest.readBigUInt64LE(8) };
}

export function filesystemImports(context: WasiInstanceContext): Record<string, Record<string, unknown>> {
  const fs = new Filesystem(context);
  let preopens: Array<[Descriptor, string]> | undefined;
  return {
    "wasi:filesystem/types": { Descriptor, DirectoryEntryStream, filesystemErrorCode: () => undefined },
    "wasi:filesystem/preopens": {
      // Asked of the main thread on first use, so an instance created ahead of its run asks nothing.
      getDirectories: () => {
        preopens ??= mountList(fs).map(({ guest, mode }) => [
          new Descriptor(fs, guest, guest, "directory", { read: true, write: false, mutateDirectory: mode === "rw" }),
          guest,
        ]);
        return preopens.slice();
      },
    },
  };
}

/** The run's mounts; none when the plugin may not see them (the refusal is audited on the main thread). */
function mountList(fs: Filesystem): Array<{ guest: string; mode: "ro" | "rw" }> {
  try {
    return fs.call("mounts", []) as Array<{ guest: string; mode: "ro" | "rw" }>;
  } catch {
    return [];
  }
}
