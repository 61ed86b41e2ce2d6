/**
 * The records of `clawhive:host/fs@0.1.1`'s bulk operations (`walk`, `search`): their options as the
 * guest fills them and their results as `host/fs.ts` reads them back, with the readers of the
 * shared parts (skip counts, stop reasons) at their canonical-ABI offsets.
 */
/** `stop-reason`'s cases, in WIT order. */
export const STOP_REASONS: string[] = ["max-entries", "max-results", "max-files", "max-bytes", "max-matches", "max-output", "time"];

export const enum SearchMode { Literal = 0, Regex = 1 }
export const enum CaseMode { Sensitive = 0, Insensitive = 1, Smart = 2 }

/** `walk-entry` (size 24, align 8). */
export class WalkEntry {
  constructor(public path: string, public kind: string, public size: u64) {}
}

/** `skip-counts` (ten u32s, in WIT order). */
export class SkipCounts {
  sensitive: u32 = 0;
  symlink: u32 = 0;
  hardLink: u32 = 0;
  special: u32 = 0;
  tooLarge: u32 = 0;
  binary: u32 = 0;
  unaddressable: u32 = 0;
  unreadable: u32 = 0;
  excluded: u32 = 0;
  tooDeep: u32 = 0;
}

export function skipCountsAt(at: usize): SkipCounts {
  const s = new SkipCounts();
  s.sensitive = load<u32>(at);
  s.symlink = load<u32>(at + 4);
  s.hardLink = load<u32>(at + 8);
  s.special = load<u32>(at + 12);
  s.tooLarge = load<u32>(at + 16);
  s.binary = load<u32>(at + 20);
  s.unaddressable = load<u32>(at + 24);
  s.unreadable = load<u32>(at + 28);
  s.excluded = load<u32>(at + 32);
  s.tooDeep = load<u32>(at + 36);
  return s;
}

/** An `option<stop-reason>` at `at` (case byte, then the enum's byte); null when none. */
export function stopReasonAt(at: usize): string | null {
  if (load<u8>(at) == 0) return null;
  const c = <i32>load<u8>(at + 1);
  return c < STOP_REASONS.length ? unchecked(STOP_REASONS[c]) : "unknown";
}

/** `walk-options`: null lists and negative caps are `none`. */
export class WalkOptions {
  includeGlobs: string[] | null = null;
  excludeGlobs: string[] | null = null;
  /** `entry-kind` case numbers; null: the host's default (regular files). */
  kinds: u8[] | null = null;
  maxDepth: i64 = -1;
  maxEntries: i64 = -1;
  maxResults: i64 = -1;
  maxMillis: i64 = -1;
  maxOutputChars: i64 = -1;
}

export class WalkResult {
  entries: WalkEntry[] = [];
  truncated: bool = false;
  stopped: string | null = null;
  entriesScanned: u32 = 0;
  skipped: SkipCounts = new SkipCounts();
  unreadable: string[] = [];
}

/** `search-options`: null lists, a negative mode and negative caps are `none`. */
export class SearchOptions {
  constructor(public pattern: string) {}
  mode: i32 = -1;
  caseMode: i32 = -1;
  includeGlobs: string[] | null = null;
  excludeGlobs: string[] | null = null;
  contextBefore: i64 = -1;
  contextAfter: i64 = -1;
  maxDepth: i64 = -1;
  maxEntries: i64 = -1;
  maxFiles: i64 = -1;
  maxBytes: i64 = -1;
  maxFileBytes: i64 = -1;
  maxMatches: i64 = -1;
  maxMatchesPerFile: i64 = -1;
  maxLineLength: i64 = -1;
  maxMillis: i64 = -1;
  maxOutputChars: i64 = -1;
}

/** `search-match` (size 36, align 4). */
export class SearchMatch {
  path: string = "";
  line: u32 = 0;
  text: string = "";
  before: string[] = [];
  after: string[] = [];
}

export class SearchResult {
  matches: SearchMatch[] = [];
  truncated: bool = false;
  stopped: string | null = null;
  entriesScanned: u32 = 0;
  filesScanned: u32 = 0;
  filesMatched: u32 = 0;
  bytesRead: u64 = 0;
  skipped: SkipCounts = new SkipCounts();
  unreadable: string[] = [];
}
