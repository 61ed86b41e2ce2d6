import { accessSync, constants, existsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { StoreError } from "./errors.js";

/**
 * How a store file can be opened. `readOnly`: every write would fail, so none is tried (no WAL
 * switch, no migration). `immutable`: read-only, and SQLite could not even make the WAL index
 * (`-shm`) beside the file — a read-only folder or mount — so the file is opened as one nobody
 * writes (SQLite's `immutable` URI parameter), which is what it is: no log lies beside it and
 * no writer could make one.
 */
export interface FileAccess {
  readonly readOnly: boolean;
  readonly immutable: boolean;
}

/**
 * Decided from the file, its folder and the files SQLite keeps beside it. A file with no write
 * bit at all is read-only even for root (whom the kernel would let write); otherwise the kernel
 * says (`access(W_OK)`: permissions, a read-only mount). A writable file in a folder that cannot
 * be written is read-only too: a commit needs a log file there.
 */
export function fileAccess(path: string, options: { readOnly: boolean; location: string }): FileAccess {
  if (!existsSync(path)) return { readOnly: options.readOnly, immutable: false };
  const folderWritable = writable(dirname(path));
  const shm = existsSync(`${path}-shm`);
  const wal = nonEmpty(`${path}-wal`);
  const readOnly = options.readOnly || (statSync(path).mode & 0o222) === 0 || !writable(path) || (!folderWritable && !(wal && shm));
  if (!readOnly || folderWritable || shm) return { readOnly, immutable: false };
  if (wal || nonEmpty(`${path}-journal`)) {
    // Commits wait in a log that can only be read through an index SQLite cannot make here.
    throw new StoreError(
      "store_read_only",
      `store ${options.location}: its folder cannot be written and it has a log of commits not yet in the file (${path}-wal or -journal) that cannot be read without writing beside it; ` +
        "open it once where its folder is writable (any clawhive command, as a user who may write there), or copy the folder somewhere writable and read the copy",
    );
  }
  return { readOnly, immutable: true };
}

/** The SQLite URI that opens `path` as a file nobody writes: the path percent-encoded segment by segment. */
export function immutableUri(path: string): string {
  return `file:${path.split("/").map(encodeURIComponent).join("/")}?immutable=1`;
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function nonEmpty(path: string): boolean {
  try {
    return statSync(path).size > 0;
  } catch {
    return false;
  }
}
