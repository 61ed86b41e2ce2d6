/**
 * The shapes of `clawhive:host/fs` `walk` and `search` (wit/host/fs.wit, 0.1.1) as jco lifts
 * them, and the job the bulk worker runs. Options arrive from guest memory (or Extism JSON):
 * options.ts checks them before anything else sees them.
 */
import type { FsEntryKind } from "../types.js";

/** `stop-reason`: which cap ended a walk or search early (`truncated` is then true). */
export type FsStopReason = "max-entries" | "max-results" | "max-files" | "max-bytes" | "max-matches" | "max-output" | "time";

/** `search-mode`. */
export type FsSearchMode = "literal" | "regex";
/** `case-mode`: `smart` is insensitive unless the pattern holds an upper-case letter. */
export type FsCaseMode = "sensitive" | "insensitive" | "smart";

/** `skip-counts`: entries a walk or search passed over, by reason. */
export interface FsSkipCounts {
  /** On the sensitive-name deny list (never listed, entered or read). */
  sensitive: number;
  /** Symbolic links: never followed. */
  symlink: number;
  /** Files with more than one name (a search reads none). */
  hardLink: number;
  /** Devices, FIFOs and sockets (a search reads none). */
  special: number;
  /** Files over the per-file byte cap. */
  tooLarge: number;
  /** Files with a NUL byte in their first 8000 bytes, or not UTF-8. */
  binary: number;
  /** Names a guest path cannot hold (not UTF-8, control characters, a backslash). */
  unaddressable: number;
  /** Entries the host would not open (permissions, gone meanwhile). */
  unreadable: number;
  /** Entries matching an exclude glob (directories are then not entered). */
  excluded: number;
  /** Directories not entered because they lie deeper than `max-depth`. */
  tooDeep: number;
}

/** `walk-options`; every field may be left out. */
export interface FsWalkOptions {
  includeGlobs?: string[] | undefined;
  excludeGlobs?: string[] | undefined;
  /** Entry kinds to return; default (or empty): regular files only. */
  kinds?: FsEntryKind[] | undefined;
  maxDepth?: number | undefined;
  maxEntries?: number | undefined;
  maxResults?: number | undefined;
  maxMillis?: number | undefined;
  maxOutputChars?: number | undefined;
}

/** `walk-entry`. */
export interface FsWalkEntry {
  path: string;
  kind: FsEntryKind;
  /** 0 for anything but a regular file. */
  size: bigint;
}

/** `walk-result`. */
export interface FsWalkResult {
  entries: FsWalkEntry[];
  truncated: boolean;
  stopped?: FsStopReason | undefined;
  entriesScanned: number;
  skipped: FsSkipCounts;
  /** Entries that could not be read, with why (at most 20 named; `skipped.unreadable` counts all). */
  unreadable: string[];
}

/** `search-options`; only `pattern` is required. */
export interface FsSearchOptions {
  pattern: string;
  mode?: FsSearchMode | undefined;
  caseMode?: FsCaseMode | undefined;
  includeGlobs?: string[] | undefined;
  excludeGlobs?: string[] | undefined;
  contextBefore?: number | undefined;
  contextAfter?: number | undefined;
  maxDepth?: number | undefined;
  maxEntries?: number | undefined;
  maxFiles?: number | undefined;
  maxBytes?: number | undefined;
  maxFileBytes?: number | undefined;
  maxMatches?: number | undefined;
  maxMatchesPerFile?: number | undefined;
  maxLineLength?: number | undefined;
  maxMillis?: number | undefined;
  maxOutputChars?: number | undefined;
}

/** `search-match`: one matching line (each line is reported once, however often it matches). */
export interface FsSearchMatch {
  path: string;
  /** 1-based. */
  line: number;
  text: string;
  before: string[];
  after: string[];
}

/** `search-result`. */
export interface FsSearchResult {
  matches: FsSearchMatch[];
  truncated: boolean;
  stopped?: FsStopReason | undefined;
  entriesScanned: number;
  /** Files whose content was read and searched. */
  filesScanned: number;
  /** Files with at least one match returned. */
  filesMatched: number;
  bytesRead: bigint;
  skipped: FsSkipCounts;
  unreadable: string[];
}

/** Walk options after checking: every cap set. */
export interface WalkLimits {
  includeGlobs: string[];
  excludeGlobs: string[];
  kinds: FsEntryKind[];
  maxDepth: number;
  maxEntries: number;
  maxResults: number;
  maxMillis: number;
  maxOutputChars: number;
}

/** Search options after checking: every cap set, the case mode resolved. */
export interface SearchLimits {
  pattern: string;
  mode: FsSearchMode;
  caseInsensitive: boolean;
  includeGlobs: string[];
  excludeGlobs: string[];
  contextBefore: number;
  contextAfter: number;
  maxDepth: number;
  maxEntries: number;
  maxFiles: number;
  maxBytes: number;
  maxFileBytes: number;
  maxMatches: number;
  maxMatchesPerFile: number;
  maxLineLength: number;
  maxMillis: number;
  maxOutputChars: number;
}

/** One mount as the worker sees it: its guest path and the root the proxy holds open. */
export interface JobMount {
  guest: string;
  fd: number;
}

/** What the main thread hands the bulk worker: canonical, decided values only. */
export type BulkJob = {
  id: number;
  mounts: JobMount[];
  /** The canonical start: a mount and segments inside it (canonicalize.ts). */
  start: { mount: number; segments: string[]; guest: string };
  /** `allowSensitive` lists; an entry is hidden unless every one lifts it. */
  lifts: string[][];
} & ({ op: "walk"; limits: WalkLimits } | { op: "search"; limits: SearchLimits });

/** What the worker answers; numbers only (sizes become bigints on the main thread). */
export type BulkReply =
  | { id: number; ok: true; value: WorkerWalkResult | WorkerSearchResult }
  | { id: number; ok: false; error: import("../../types.js").HostError };

export type WorkerWalkResult = Omit<FsWalkResult, "entries"> & { entries: Array<{ path: string; kind: FsEntryKind; size: number }> };
export type WorkerSearchResult = Omit<FsSearchResult, "bytesRead"> & { bytesRead: number };

export function emptySkips(): FsSkipCounts {
  return { sensitive: 0, symlink: 0, hardLink: 0, special: 0, tooLarge: 0, binary: 0, unaddressable: 0, unreadable: 0, excluded: 0, tooDeep: 0 };
}
