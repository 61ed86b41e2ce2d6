import { mkdir, read, write } from "clawhive:host/fs@0.1.1";
import { hostError } from "./host-error.js";
import { parentPath } from "./paths.js";
import { fail } from "./tool-failure.js";
import { decodeText } from "./decode.js";

/** The file at `path` as text; fails clearly if it is not text. */
export function readText(path: string): string {
  const text = decodeText(read(path));
  if (text === undefined) {
    throw fail.failed(`${path}: is a binary file (or not UTF-8); only text files can be read as text`);
  }
  return text;
}

export interface WriteTextOptions {
  /** Create missing parent directories (default false). */
  createParents?: boolean;
}

/** Writes `text` as UTF-8 to `path`, creating or truncating the file. Returns its size in bytes. */
export function writeText(path: string, text: string, options: WriteTextOptions = {}): number {
  const data = new TextEncoder().encode(text);
  try {
    write(path, data);
  } catch (e) {
    // Try the write first and create parents only when it says they are missing: the common
    // case costs one host call, and the tool needs no read capability to look first.
    if (options.createParents !== true || hostError(e)?.tag !== "not-found") throw e;
    mkdir(parentPath(path));
    write(path, data);
  }
  return data.length;
}
