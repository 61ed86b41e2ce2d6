/**
 * The fake host's `walk` and `search`: the real host's option checks, globs and line scanner
 * (host-proxies/fs/bulk) over the fake's in-memory tree, in the real walk's order (a
 * directory's entries in name order, then its subdirectories). Sensitive names are hidden and
 * counted, as the host does; the host's own adversarial cases are tested against the real proxy.
 */
import { searchLimits, walkLimits } from "../../../host-proxies/fs/bulk/options.js";
import { OutputBudget } from "../../../host-proxies/fs/bulk/output.js";
import { compilePattern } from "../../../host-proxies/fs/bulk/pattern.js";
import { scanFile } from "../../../host-proxies/fs/bulk/scan.js";
import { emptySkips } from "../../../host-proxies/fs/bulk/types.js";
import type { FsSearchMatch, FsSearchResult, FsSkipCounts, FsStopReason, FsWalkResult } from "../../../host-proxies/fs/bulk/types.js";
import { compilePathGlob } from "../../../host-proxies/fs/path-glob.js";
import { HostProxyError } from "../../../host-proxies/types.js";

/** The read cap of the fake host: a search skips larger files. */
export const FAKE_MAX_READ_BYTES = 4 * 1024 * 1024;

export interface FakeTree {
  files: ReadonlyMap<string, Uint8Array>;
  dirs: ReadonlySet<string>;
  sensitive: RegExp;
  /** Throws the guest-side error for a host error. */
  fail: (error: HostProxyError) => never;
}

interface Visit {
  path: string;
  relative: string;
  name: string;
  kind: "file" | "directory";
}

function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

function walkTree(tree: FakeTree, root: string, limits: { excludeGlobs: string[]; maxDepth: number }, skipped: FsSkipCounts, visit: (v: Visit) => boolean): void {
  const exclude = limits.excludeGlobs.map(compilePathGlob);
  let stopped = false;
  const dir = (path: string, relative: string, depth: number): void => {
    const names = [...tree.dirs].filter((d) => d !== path && parentOf(d) === path).map((d) => ({ name: d.slice(path.length + 1), kind: "directory" as const }));
    for (const file of tree.files.keys()) if (parentOf(file) === path) names.push({ name: file.slice(path.length + 1), kind: "file" as never });
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirectories: Visit[] = [];
    for (const { name, kind } of names) {
      if (stopped) return;
      if (tree.sensitive.test(name)) {
        skipped.sensitive++;
        continue;
      }
      const rel = relative === "" ? name : `${relative}/${name}`;
      if (exclude.some((g) => g.matches(rel, name))) {
        skipped.excluded++;
        continue;
      }
      const entry: Visit = { path: `${path}/${name}`, relative: rel, name, kind };
      if (!visit(entry)) {
        stopped = true;
        return;
      }
      if (kind === "directory") subdirectories.push(entry);
    }
    for (const sub of subdirectories) {
      if (stopped) return;
      if (depth + 2 > limits.maxDepth) skipped.tooDeep++;
      else dir(sub.path, sub.relative, depth + 1);
    }
  };
  dir(root, "", 0);
}

function checked<T>(tree: FakeTree, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof HostProxyError) tree.fail(e);
    throw e;
  }
}

export function fakeWalk(tree: FakeTree, path: string, options: unknown): FsWalkResult {
  const limits = checked(tree, () => walkLimits(options));
  if (tree.files.has(path)) tree.fail(HostProxyError.invalidInput(`${path}: is not a directory`));
  if (!tree.dirs.has(path)) tree.fail(HostProxyError.notFound(`${path}: no such file or directory`));
  const include = limits.includeGlobs.map(compilePathGlob);
  const skipped = emptySkips();
  const entries: FsWalkResult["entries"] = [];
  let stopped: FsStopReason | undefined;
  const output = new OutputBudget(limits.maxOutputChars);
  walkTree(tree, path, limits, skipped, (v) => {
    if (!limits.kinds.includes(v.kind) || (include.length > 0 && !include.some((g) => g.matches(v.relative, v.name)))) return true;
    if (entries.length === limits.maxResults) {
      stopped = "max-results";
      return false;
    }
    if (!output.takePath(v.path)) {
      stopped = "max-output";
      return false;
    }
    entries.push({ path: v.path, kind: v.kind, size: BigInt(tree.files.get(v.path)?.length ?? 0) });
    return true;
  });
  return { entries, truncated: stopped !== undefined, stopped, entriesScanned: entries.length, skipped, unreadable: [] };
}

export function fakeSearch(tree: FakeTree, path: string, options: unknown): FsSearchResult {
  const limits = checked(tree, () => searchLimits(options, FAKE_MAX_READ_BYTES));
  const pattern = compilePattern(limits.pattern, { mode: limits.mode, caseInsensitive: limits.caseInsensitive });
  const include = limits.includeGlobs.map(compilePathGlob);
  const skipped = emptySkips();
  const matches: FsSearchMatch[] = [];
  let stopped: FsStopReason | undefined;
  let filesScanned = 0;
  let filesMatched = 0;
  let bytesRead = 0;
  const output = new OutputBudget(limits.maxOutputChars);
  const searchFile = (file: string): boolean => {
    const bytes = Buffer.from(tree.files.get(file) ?? new Uint8Array());
    if (bytes.length > limits.maxFileBytes) {
      skipped.tooLarge++;
      return true;
    }
    if (filesScanned === limits.maxFiles) {
      stopped = "max-files";
      return false;
    }
    filesScanned++;
    bytesRead += bytes.length;
    const outcome = scanFile(bytes, pattern, { ...limits, remaining: limits.maxMatches - matches.length, deadline: Number.POSITIVE_INFINITY });
    if (outcome.kind === "binary") {
      skipped.binary++;
      return true;
    }
    const before = matches.length;
    for (const hit of outcome.hits) {
      if (!output.takeMatch(file, hit)) stopped = "max-output";
      if (stopped !== undefined) break;
      matches.push({ path: file, ...hit });
    }
    if (matches.length > before) filesMatched++;
    if (stopped === undefined && outcome.more) stopped = "max-matches";
    return stopped === undefined;
  };
  if (tree.files.has(path)) searchFile(path);
  else if (!tree.dirs.has(path)) tree.fail(HostProxyError.notFound(`${path}: no such file or directory`));
  else {
    walkTree(tree, path, limits, skipped, (v) => {
      if (v.kind !== "file" || (include.length > 0 && !include.some((g) => g.matches(v.relative, v.name)))) return true;
      return searchFile(v.path);
    });
  }
  return { matches, truncated: stopped !== undefined, stopped, entriesScanned: 0, filesScanned, filesMatched, bytesRead: BigInt(bytesRead), skipped, unreadable: [] };
}
