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
import { bytesSource, InputStream, OutputStream, symbolDispose } from "./streams.js";
import type { WasiInstanceContext } from "./context.js";
import { descriptorStat, DirectoryEntryStream, Filesystem, hashOf, KIND_TYPES, MAX_WASI_FILE_BYTES, type DescriptorType, type ErrorCode, type Flags, type HostStat } from "./filesystem-host.js";

export { DirectoryEntryStream, MAX_WASI_FILE_BYTES } from "./filesystem-host.js";

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

export function filesystemImports(context: WasiInstanceContext): Record<string, Record<string, unknown>> {
  const fs = new Filesystem(context);
  let preopens: Array<[Descriptor, string]> | undefined;
  return {
    "wasi:filesystem/types": { Descriptor, DirectoryEntryStream, filesystemErrorCode: () => undefined },
    "wasi:filesystem/preopens": {
      // Asked of the main thread on first use, so an instance created ahead of its run asks
      // nothing; a refused answer (an unbound instance) is not kept, so it is asked again.
      getDirectories: () => {
        if (!preopens) {
          const mounts = mountList(fs);
          const list = (mounts ?? []).map(({ guest, mode }): [Descriptor, string] => [
            new Descriptor(fs, guest, guest, "directory", { read: true, write: false, mutateDirectory: mode === "rw" }),
            guest,
          ]);
          if (!mounts) return list;
          preopens = list;
        }
        return preopens.slice();
      },
    },
  };
}

/** The run's mounts; undefined when the plugin may not see them (the refusal is audited on the main thread). */
function mountList(fs: Filesystem): Array<{ guest: string; mode: "ro" | "rw" }> | undefined {
  try {
    return fs.call("mounts", []) as Array<{ guest: string; mode: "ro" | "rw" }>;
  } catch {
    return undefined;
  }
}
