import { mounts } from "clawhive:host/fs@0.1.1";
import { fail } from "./tool-failure.js";

/** `dir` and `name` joined with one `/`. */
export function joinPath(dir: string, name: string): string {
  return dir.endsWith("/") ? dir + name : `${dir}/${name}`;
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

/**
 * The guest path a tool should pass to `clawhive:host/fs` for a path the model gave: an
 * absolute path as is, a relative one against the first mount (`.` is the first mount itself).
 * Empty and `.` segments are dropped; `..` is left for the host. The guest only tidies the text;
 * the host canonicalises it and decides whether it is inside a mount, so nothing here is a
 * security check.
 */
export function resolvePath(path: string): string {
  if (path === "") throw fail.invalidInput("path: must not be empty");
  let root = "";
  if (!path.startsWith("/")) {
    const first = mounts()[0];
    if (first === undefined) throw fail.failed(`path "${path}": this instance has no mounts to resolve it against`);
    root = first.guest.replace(/\/+$/, "");
  }
  const segments = path.split("/").filter((s) => s !== "" && s !== ".");
  return segments.length === 0 ? root || "/" : `${root}/${segments.join("/")}`;
}
