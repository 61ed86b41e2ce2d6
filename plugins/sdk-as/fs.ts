/**
 * Helpers over `clawhive:host/fs` (host/fs.ts), as the TypeScript SDK's `sdk/fs.ts`: import this
 * only in a plugin whose world imports the fs proxy. A failure comes back as the tool error the
 * tool should return, with the TypeScript SDK's messages.
 */
import { mkdir, mounts, read, write } from "./host/fs";
import { decodeText, encodeText } from "./text";
import { HostErrorCase, ToolError } from "./tool-error";

/** A helper's answer: its value, or the tool error to return. */
export class Got<T> {
  constructor(public value: T, public error: ToolError | null) {}
}

/** `dir` and `name` joined with one `/`. */
export function joinPath(dir: string, name: string): string {
  return dir.endsWith("/") ? dir + name : dir + "/" + name;
}

/** The directory part of an absolute guest path (`/` for `/a`). */
export function parentPath(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

/** The last segment of a path. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** The path's segments without empty and `.` ones. */
export function segmentsOf(path: string): string[] {
  const parts = path.split("/");
  const out = new Array<string>();
  for (let i = 0; i < parts.length; i++) {
    const s = unchecked(parts[i]);
    if (s != "" && s != ".") out.push(s);
  }
  return out;
}

/**
 * The guest path to pass to the fs proxy for a path the model gave: an absolute path as is, a
 * relative one against the first mount (`.` is the first mount itself). Empty and `.` segments
 * are dropped; `..` is left for the host, which canonicalises the path and decides whether it is
 * inside a mount, so nothing here is a security check.
 */
export function resolvePath(path: string): Got<string> {
  if (path == "") return new Got<string>("", ToolError.invalidInput("path: must not be empty"));
  let root = "";
  if (!path.startsWith("/")) {
    const all = mounts();
    if (all.length == 0) return new Got<string>("", ToolError.failed("path \"" + path + "\": this instance has no mounts to resolve it against"));
    root = unchecked(all[0]).guest;
    while (root.endsWith("/")) root = root.slice(0, root.length - 1);
  }
  const segments = segmentsOf(path);
  if (segments.length == 0) return new Got<string>(root == "" ? "/" : root, null);
  return new Got<string>(root + "/" + segments.join("/"), null);
}

/** The file at `path` as text; a binary file is a `failed` tool error. */
export function readText(path: string): Got<string> {
  const got = read(path);
  const error = got.error;
  if (error != null) return new Got<string>("", ToolError.fromHost(error));
  const text = decodeText(got.value);
  if (text == null) return new Got<string>("", ToolError.failed(path + ": is a binary file (or not UTF-8); only text files can be read as text"));
  return new Got<string>(text, null);
}

/**
 * Writes `text` as UTF-8 to `path`, creating or truncating the file; with `createParents`,
 * missing parent directories are made (tried only after the write says they are missing, so the
 * common case is one host call). Returns the size in bytes.
 */
export function writeText(path: string, text: string, createParents: bool): Got<i32> {
  const data = encodeText(text);
  let done = write(path, data);
  let error = done.error;
  if (error != null && createParents && error.tag == HostErrorCase.NotFound) {
    const made = mkdir(parentPath(path));
    const mkdirError = made.error;
    if (mkdirError != null) return new Got<i32>(0, ToolError.fromHost(mkdirError));
    done = write(path, data);
    error = done.error;
  }
  if (error != null) return new Got<i32>(0, ToolError.fromHost(error));
  return new Got<i32>(data.length, null);
}
