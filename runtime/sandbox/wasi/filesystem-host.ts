/**
 * The host side of one instance's `wasi:filesystem`: the bridge every descriptor's operation
 * crosses (a `clawhive:host/fs` call, its refusal turned into a WASI error code), and the
 * shapes the fs proxy's answers take in WASI (stats, hashes, directory entries).
 */
import { createHash } from "node:crypto";
import type { HostResponse } from "../protocol.js";
import type { WasiInstanceContext } from "./context.js";

export type DescriptorType = "directory" | "regular-file" | "symbolic-link" | "unknown";
export interface HostStat {
  kind: "file" | "directory" | "symlink" | "other";
  size: bigint;
  modifiedMs: bigint;
}
/** The WASI error codes this host gives, thrown as values (the glue lowers them as the error case). */
export type ErrorCode = "file-too-large" | "access" | "not-permitted" | "no-entry" | "exist" | "not-directory" | "is-directory" | "invalid" | "io" | "not-empty" | "name-too-long" | "unsupported" | "bad-descriptor" | "read-only";

/**
 * Largest file a descriptor holds in the worker (its bytes are kept to serve offsets): an offset
 * or size past it is `file-too-large`, never an allocation that could exhaust the worker. The
 * fs proxy's own read and write caps apply below it.
 */
export const MAX_WASI_FILE_BYTES = 64 * 1024 * 1024;

export const KIND_TYPES: Record<HostStat["kind"], DescriptorType> = { file: "regular-file", directory: "directory", symlink: "symbolic-link", other: "unknown" };

/** A host call's error, as a WASI error code (the proxy's own message stays in the audit). */
export function errorCode(error: unknown): ErrorCode {
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

export interface Flags {
  read?: boolean;
  write?: boolean;
  mutateDirectory?: boolean;
}

/** One instance's filesystem: its bridge, and what every descriptor of it shares. */
export class Filesystem {
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

export class DirectoryEntryStream {
  readonly #entries: Array<{ type: DescriptorType; name: string }>;
  constructor(entries: Array<{ type: DescriptorType; name: string }>) {
    this.#entries = entries;
  }
  readDirectoryEntry(): { type: DescriptorType; name: string } | undefined {
    return this.#entries.shift();
  }
}

export function descriptorStat(stat: HostStat): Record<string, unknown> {
  const ms = BigInt(stat.modifiedMs);
  const time = { seconds: ms / 1000n, nanoseconds: Number(ms % 1000n) * 1_000_000 };
  return { type: KIND_TYPES[stat.kind] ?? "unknown", linkCount: 1n, size: BigInt(stat.size), dataAccessTimestamp: undefined, dataModificationTimestamp: time, statusChangeTimestamp: undefined };
}

export function hashOf(path: string, stat: HostStat): { lower: bigint; upper: bigint } {
  const digest = createHash("sha256").update(`${path}\0${stat.size}\0${stat.modifiedMs}`).digest();
  return { lower: digest.readBigUInt64LE(0), upper: digest.readBigUInt64LE(8) };
}
