/**
 * An in-memory stand-in for the `clawhive:host/fs` and `clawhive:host/log` imports of a plugin,
 * failing the way the guest sees real host calls fail: by throwing a `ComponentError`-like
 * `Error` whose `payload` is the WIT `host-error` variant.
 */
import type { Denial, HostError } from "../../../host-proxies/types.js";
import { fakeSearch, fakeWalk } from "./fake-bulk.js";
import type { FakeTree } from "./fake-bulk.js";

// The WIT types themselves, from the host side: a fake that declared its own could drift.
export type { Denial, HostError };

/** What the guest's generated bindings throw for a failed host call. */
export class FakeComponentError extends Error {
  readonly payload: HostError;
  constructor(payload: HostError) {
    super(`host call failed: ${payload.tag}`);
    this.name = "ComponentError";
    this.payload = payload;
  }
}

export type EntryKind = "file" | "directory" | "symlink" | "other";

export interface FakeMount {
  guest: string;
  mode: "ro" | "rw";
}

export type FsFunction = "mounts" | "read" | "write" | "listDir" | "stat" | "remove" | "mkdir" | "walk" | "search";

export interface FakeFsOptions {
  /** Default: `/work` (rw) and `/ref` (ro). */
  mounts?: FakeMount[];
  /** Files by absolute guest path; parent directories are created. */
  files?: Record<string, string | Uint8Array>;
  /** Paths whose last segment matches are denied with `sensitive-name` (default `.env`, `.ssh`). */
  sensitive?: RegExp;
}

/** The import object a plugin instance is given, keyed as the guest imports it. */
export type HostImports = Record<string, Record<string, (...args: never[]) => unknown>>;

const READS: ReadonlySet<FsFunction> = new Set(["read", "listDir", "stat", "walk", "search"]);

function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

export class FakeFs {
  /** Every host call made, as `fn path`, in order. */
  readonly calls: string[] = [];
  readonly logs: { level: string; message: string }[] = [];
  readonly #files = new Map<string, Uint8Array>();
  readonly #dirs = new Set<string>();
  readonly #mounts: FakeMount[];
  readonly #sensitive: RegExp;
  readonly #faults = new Map<FsFunction, (...args: unknown[]) => unknown>();

  constructor(options: FakeFsOptions = {}) {
    this.#mounts = options.mounts ?? [
      { guest: "/work", mode: "rw" },
      { guest: "/ref", mode: "ro" },
    ];
    this.#sensitive = options.sensitive ?? /^(\.env|\.ssh)$/;
    for (const mount of this.#mounts) this.#dirs.add(mount.guest);
    for (const [path, content] of Object.entries(options.files ?? {})) this.addFile(path, content);
  }

  addFile(path: string, content: string | Uint8Array): void {
    this.addDir(parentOf(path));
    this.#files.set(path, typeof content === "string" ? new TextEncoder().encode(content) : content);
  }

  addDir(path: string): void {
    for (let p = path; p !== "/" && !this.#dirs.has(p); p = parentOf(p)) this.#dirs.add(p);
  }

  /** A file's content as text, or `undefined` if there is no such file. */
  text(path: string): string | undefined {
    const bytes = this.#files.get(path);
    return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
  }

  hasDir(path: string): boolean {
    return this.#dirs.has(path);
  }

  /** Replaces one host function, e.g. to throw something a real host never should. */
  fault(fn: FsFunction, impl: (...args: unknown[]) => unknown): void {
    this.#faults.set(fn, impl);
  }

  imports(): HostImports {
    const fs = {
      mounts: () => this.#call("mounts", "", () => this.#mounts.map((m) => ({ ...m }))),
      read: (path: string) => this.#call("read", path, () => this.#read(path)),
      write: (path: string, data: Uint8Array) => this.#call("write", path, () => this.#write(path, data)),
      listDir: (path: string) => this.#call("listDir", path, () => this.#listDir(path)),
      stat: (path: string) => this.#call("stat", path, () => this.#stat(path)),
      remove: (path: string) =>
        this.#call("remove", path, () => {
          if (!this.#files.delete(path) && !this.#dirs.delete(path)) this.#fail("not-found", `${path}: no such file`);
        }),
      mkdir: (path: string) => this.#call("mkdir", path, () => this.addDir(path)),
      walk: (path: string, options: unknown) => this.#call("walk", path, () => fakeWalk(this.#tree(), path, options)),
      search: (path: string, options: unknown) => this.#call("search", path, () => fakeSearch(this.#tree(), path, options)),
    };
    const log = {
      write: (level: string, message: string) => {
        this.logs.push({ level, message });
      },
    };
    return { "clawhive:host/fs@0.1.1": fs, "clawhive:host/log@0.1.1": log, "clawhive:host/types@0.1.1": {} };
  }

  #tree(): FakeTree {
    return { files: this.#files, dirs: this.#dirs, sensitive: this.#sensitive, fail: (e) => { throw new FakeComponentError(e.hostError); } };
  }

  #call(fn: FsFunction, path: string, effect: () => unknown): unknown {
    this.calls.push(fn === "mounts" ? fn : `${fn} ${path}`);
    const fault = this.#faults.get(fn);
    if (fault !== undefined) return fault(path);
    if (fn !== "mounts") this.#check(fn, path);
    return effect();
  }

  #fail(tag: "not-found" | "invalid-input" | "io", val: string): never {
    throw new FakeComponentError({ tag, val });
  }

  #deny(fn: FsFunction, reason: string, message: string): never {
    const capability = READS.has(fn) ? "fs.read" : "fs.write";
    throw new FakeComponentError({ tag: "denied", val: { capability, reason, message } });
  }

  #check(fn: FsFunction, path: string): void {
    if (!path.startsWith("/")) this.#fail("invalid-input", `${path}: must be an absolute guest path`);
    if (path.split("/").includes("..")) this.#deny(fn, "outside-mount", `${path}: ".." is not allowed`);
    const mount = this.#mounts.find((m) => path === m.guest || path.startsWith(`${m.guest}/`));
    if (mount === undefined) this.#deny(fn, "outside-mount", `${path}: is outside every mount`);
    if (path.split("/").some((segment) => this.#sensitive.test(segment))) {
      this.#deny(fn, "sensitive-name", `${path}: names a sensitive file`);
    }
    if (!READS.has(fn) && mount.mode === "ro") this.#deny(fn, "read-only-mount", `${path}: mount ${mount.guest} is read-only`);
  }

  #read(path: string): Uint8Array {
    if (this.#dirs.has(path)) this.#fail("io", `${path}: is a directory`);
    const bytes = this.#files.get(path);
    if (bytes === undefined) this.#fail("not-found", `${path}: no such file`);
    return bytes.slice();
  }

  #write(path: string, data: Uint8Array): void {
    if (!this.#dirs.has(parentOf(path))) this.#fail("not-found", `${parentOf(path)}: no such directory`);
    if (this.#dirs.has(path)) this.#fail("io", `${path}: is a directory`);
    this.#files.set(path, data.slice());
  }

  #listDir(path: string): { name: string; kind: EntryKind; size: bigint }[] {
    if (this.#files.has(path)) this.#fail("io", `${path}: is not a directory`);
    if (!this.#dirs.has(path)) this.#fail("not-found", `${path}: no such directory`);
    const entries: { name: string; kind: EntryKind; size: bigint }[] = [];
    for (const dir of this.#dirs) {
      if (dir !== path && parentOf(dir) === path) entries.push({ name: dir.slice(path.length + 1), kind: "directory", size: 4096n });
    }
    for (const [file, bytes] of this.#files) {
      if (parentOf(file) === path) entries.push({ name: file.slice(path.length + 1), kind: "file", size: BigInt(bytes.length) });
    }
    // Unsorted on purpose: a real directory listing has no order.
    return entries.reverse();
  }

  #stat(path: string): { kind: EntryKind; size: bigint; modifiedMs: bigint } {
    if (this.#dirs.has(path)) return { kind: "directory", size: 4096n, modifiedMs: 1_700_000_000_000n };
    const bytes = this.#files.get(path);
    if (bytes === undefined) this.#fail("not-found", `${path}: no such file`);
    return { kind: "file", size: BigInt(bytes.length), modifiedMs: 1_700_000_000_000n };
  }
}
