/**
 * read and write of one file, acting only through the parent directory's handle (dir-walk.ts).
 * Callers have already canonicalised and decided the path; raw OS errors are thrown and mapped
 * to guest-worded errors by the caller.
 */
import { constants } from "node:fs";
import type { BigIntStats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { HostProxyError } from "../types.js";
import { openFileAt, withDirAt } from "./dir-walk.js";
import { FS_DENIAL_REASONS, fsDenied } from "./reasons.js";
import type { CanonicalFsPath, FsOp } from "./types.js";

const { O_RDONLY, O_WRONLY, O_CREAT, O_NONBLOCK, O_NOCTTY } = constants;
// O_NONBLOCK: opening a FIFO for reading would otherwise block until a writer comes (fifo(7)).
// O_NOCTTY: opening a terminal must never make it our controlling terminal.
export const READ_FLAGS = O_RDONLY | O_NONBLOCK | O_NOCTTY;
// No O_TRUNC: the file is truncated only after fstat shows it is ours to change.
const WRITE_FLAGS = O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY;
const CHUNK_BYTES = 256 * 1024;

/** `[parents, name]`, or an error for the mount root, which is a directory. */
export function splitLast(path: CanonicalFsPath): [string[], string] {
  const name = path.segments[path.segments.length - 1];
  if (name === undefined) throw HostProxyError.invalidInput(`${path.guest}: is a directory (a mount root)`);
  return [path.segments.slice(0, -1), name];
}

export async function readAt(root: FileHandle, path: CanonicalFsPath, options: { maxBytes: number }): Promise<Uint8Array> {
  const [parents, name] = splitLast(path);
  return withDirAt(root, parents, async (dir) => {
    const file = await openFileAt(dir, name, READ_FLAGS);
    try {
      const st = await file.stat({ bigint: true });
      assertOwnRegularFile(st, "read", path.guest);
      if (st.size > BigInt(options.maxBytes)) throw sizeCap("read", path.guest, options.maxBytes);
      return await readCapped(file, path.guest, options.maxBytes);
    } finally {
      await file.close();
    }
  });
}

export async function writeAt(
  root: FileHandle,
  path: CanonicalFsPath,
  options: { data: Uint8Array; maxBytes: number },
): Promise<void> {
  if (options.data.byteLength > options.maxBytes) throw sizeCap("write", path.guest, options.maxBytes);
  const [parents, name] = splitLast(path);
  await withDirAt(root, parents, async (dir) => {
    // O_NOFOLLOW (added by openFileAt) with O_CREAT: a planted symlink, even a dangling one,
    // fails with ELOOP instead of creating or truncating its target.
    const file = await openFileAt(dir, name, WRITE_FLAGS, 0o666);
    try {
      assertOwnRegularFile(await file.stat({ bigint: true }), "write", path.guest);
      await file.truncate(0);
      await file.writeFile(options.data);
    } finally {
      await file.close();
    }
  });
}

/**
 * A regular file with one name. A second name (hard link) may be outside every mount, and
 * nothing in the mount can tell where: refuse rather than read or change someone else's file.
 */
export function assertOwnRegularFile(st: BigIntStats, op: FsOp, guest: string): void {
  if (st.isDirectory()) throw HostProxyError.invalidInput(`${guest}: is a directory`);
  if (!st.isFile()) {
    throw fsDenied(op, FS_DENIAL_REASONS.specialFile, `${guest}: is a device, FIFO or socket; only regular files can be read or written`);
  }
  if (st.nlink > 1n) {
    throw fsDenied(op, FS_DENIAL_REASONS.hardLink, `${guest}: file has ${st.nlink} hard links; files with more than one name are refused`);
  }
}

/** Reads to EOF, refusing past `maxBytes` even if the file grew after its fstat. */
async function readCapped(file: FileHandle, guest: string, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const chunk = new Uint8Array(Math.min(CHUNK_BYTES, maxBytes - total + 1));
    const { bytesRead } = await file.read(chunk, 0, chunk.byteLength, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > maxBytes) throw sizeCap("read", guest, maxBytes);
    chunks.push(chunk.subarray(0, bytesRead));
  }
  // A fresh, exact buffer: a view on a shared pool would carry unrelated bytes across the
  // bridge, since structured clone copies a view's whole ArrayBuffer.
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function sizeCap(op: FsOp, guest: string, maxBytes: number): HostProxyError {
  const verb = op === "read" ? "file is larger than" : "data is larger than";
  return fsDenied(op, FS_DENIAL_REASONS.sizeCap, `${guest}: ${verb} the ${maxBytes}-byte cap`);
}
