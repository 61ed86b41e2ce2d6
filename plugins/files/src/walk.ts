import { listDir } from "clawhive:host/fs@0.1.0";
import type { Entry } from "clawhive:host/fs@0.1.0";
import { hostError } from "../../sdk/index.js";
import { joinPath } from "../../sdk/fs.js";

/** Directories a walk does not enter unless the caller asks for them by name. */
export const NOISY_DIRECTORIES: readonly string[] = [".git", "node_modules"];

export interface WalkOptions {
  /** Levels of directories below the root to enter (default: no limit). */
  maxDepth?: number;
  /** Directory entries to look at before stopping (default 20000). */
  maxEntries?: number;
  /** Directory names not to enter (default `NOISY_DIRECTORIES`). */
  skipDirectories?: readonly string[];
}

export interface WalkedFile {
  /** Absolute guest path. */
  path: string;
  /** Path below the walk's root, `/`-separated. */
  relative: string;
  size: bigint;
}

/** How many unreadable directories a walk names before it only counts them. */
const MAX_NAMED_UNREADABLE = 20;

/**
 * A depth-first walk of the regular files below a directory (a directory's files, then its
 * subdirectories, each in name order), through
 * `clawhive:host/fs` `listDir` only. Symbolic links are neither followed nor listed, so a walk
 * cannot loop. A directory below the root that cannot be listed (denied, gone) is skipped and
 * named in `unreadable`; the root's own failure is thrown.
 */
export class TreeWalk {
  readonly #root: string;
  readonly #maxDepth: number;
  readonly #maxEntries: number;
  readonly #skip: ReadonlySet<string>;
  /** True when `maxEntries` stopped the walk early. */
  truncated = false;
  /** Directories that could not be listed, with why (at most 20 named). */
  readonly unreadable: string[] = [];
  unreadableCount = 0;

  constructor(root: string, options: WalkOptions = {}) {
    this.#root = root;
    this.#maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
    this.#maxEntries = options.maxEntries ?? 20_000;
    this.#skip = new Set(options.skipDirectories ?? NOISY_DIRECTORIES);
  }

  *files(): Generator<WalkedFile, void, undefined> {
    let seen = 0;
    // A stack of directories still to list, popped in name order.
    const pending: { path: string; relative: string; depth: number }[] = [{ path: this.#root, relative: "", depth: 0 }];
    for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
      const entries = this.#list(dir.path, dir.depth === 0);
      const subdirectories: typeof pending = [];
      for (const entry of entries) {
        seen += 1;
        if (seen > this.#maxEntries) {
          this.truncated = true;
          return;
        }
        const path = joinPath(dir.path, entry.name);
        const relative = dir.relative === "" ? entry.name : `${dir.relative}/${entry.name}`;
        if (entry.kind === "file") {
          yield { path, relative, size: entry.size };
        } else if (entry.kind === "directory" && dir.depth + 1 < this.#maxDepth && !this.#skip.has(entry.name)) {
          subdirectories.push({ path, relative, depth: dir.depth + 1 });
        }
      }
      pending.push(...subdirectories.reverse());
    }
  }

  #list(path: string, isRoot: boolean): Entry[] {
    try {
      return listDir(path).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (e) {
      const failure = hostError(e);
      if (isRoot || failure === undefined) throw e;
      this.unreadableCount += 1;
      if (this.unreadable.length < MAX_NAMED_UNREADABLE) {
        const why = failure.tag === "denied" ? `denied: ${failure.val.reason}` : failure.tag;
        this.unreadable.push(`${path} (${why})`);
      }
      return [];
    }
  }
}
