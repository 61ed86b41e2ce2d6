/**
 * What a directory listing may show of one entry: the rule `list-dir` and the bulk walk
 * (`walk`, `search`) share, so a name hidden from one is hidden from the other. A name is left
 * out when the guest could not address it (not UTF-8, a control character, a backslash…) or
 * when it is on the sensitive-name deny list and not lifted by every grant given.
 */
import { segmentProblem } from "./canonicalize.js";
import { isSensitiveEntry } from "./matcher.js";
import type { FsGrantOptions } from "./matcher.js";

export type EntrySkip = "unaddressable" | "sensitive";

// ignoreBOM: a leading U+FEFF is part of the name; stripping it would name another file.
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Names that are not valid UTF-8 would reach the guest as U+FFFD and name another file. */
export function decodeName(raw: Uint8Array): string | undefined {
  try {
    return UTF8.decode(raw);
  } catch {
    return undefined;
  }
}

/**
 * Why the entry `name` of the directory at `dir` (its guest segments, mount included) is left
 * out, or `undefined` when it is shown. `grants`: each must lift a sensitive name for it to be
 * shown (the proxy's own grant, and for bulk work every policy layer's).
 */
export function entrySkip(name: string, dir: readonly string[], grants: readonly FsGrantOptions[]): EntrySkip | undefined {
  if (segmentProblem(name) !== undefined) return "unaddressable";
  if (grants.some((grant) => isSensitiveEntry([...dir, name], grant))) return "sensitive";
  return undefined;
}
