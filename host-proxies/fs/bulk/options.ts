/**
 * The edge of `walk` and `search`: their options come from guest memory (or Extism JSON), so
 * each field is checked here and every cap is given a value, bounded by a maximum the guest
 * cannot raise. Patterns and globs are compiled once here too, so a bad one is the guest's
 * `invalid-input` before any work starts (the worker compiles them again for itself).
 */
import { HostProxyError } from "../../types.js";
import { compilePathGlob } from "../path-glob.js";
import { compilePattern, MAX_PATTERN_CHARS } from "./pattern.js";
import type { FsCaseMode, FsSearchMode, SearchLimits, WalkLimits } from "./types.js";
import type { FsEntryKind } from "../types.js";

/** [default, maximum] of each cap; the minimum is 1 unless said otherwise. */
export const BULK_CAPS = {
  maxDepth: [64, 128],
  maxEntries: [100_000, 1_000_000],
  maxResults: [10_000, 100_000],
  maxMillis: [10_000, 25_000],
  maxFiles: [20_000, 200_000],
  maxBytes: [256 * 1024 * 1024, 1024 * 1024 * 1024],
  maxMatches: [1_000, 10_000],
  maxLineLength: [300, 4_096],
  // Every other cap bounds the work, this one the answer, which crosses to the guest whole:
  // 10,000 matches with 20 context lines of 4,096 characters would be 800 MB otherwise.
  maxOutputChars: [8 * 1024 * 1024, 8 * 1024 * 1024],
} as const;
export const MAX_CONTEXT_LINES = 10;
export const MAX_GLOBS = 64;
const KINDS: readonly FsEntryKind[] = ["file", "directory", "symlink", "other"];
const MODES: readonly FsSearchMode[] = ["literal", "regex"];
const CASES: readonly FsCaseMode[] = ["sensitive", "insensitive", "smart"];

export function walkLimits(raw: unknown): WalkLimits {
  const o = record("walk", raw);
  const kinds = list("walk", o, "kinds", KINDS.length, (v, at) => oneOf("walk", at, v, KINDS));
  return {
    includeGlobs: globs("walk", o, "includeGlobs"),
    excludeGlobs: globs("walk", o, "excludeGlobs"),
    kinds: kinds.length === 0 ? ["file"] : [...new Set(kinds)],
    maxDepth: cap("walk", o, "maxDepth"),
    maxEntries: cap("walk", o, "maxEntries"),
    maxResults: cap("walk", o, "maxResults"),
    maxMillis: cap("walk", o, "maxMillis"),
    maxOutputChars: cap("walk", o, "maxOutputChars"),
  };
}

/** `maxReadBytes`: the proxy's read cap, the most a search may read of one file. */
export function searchLimits(raw: unknown, maxReadBytes: number): SearchLimits {
  const o = record("search", raw);
  const pattern = o.pattern;
  if (typeof pattern !== "string") throw bad("search", "pattern", `must be a string, got ${describe(pattern)}`);
  if (pattern.length > MAX_PATTERN_CHARS) throw bad("search", "pattern", `is longer than ${MAX_PATTERN_CHARS} characters`);
  const mode = o.mode === undefined ? "regex" : oneOf("search", "mode", o.mode, MODES);
  const caseMode = o.caseMode === undefined ? "sensitive" : oneOf("search", "caseMode", o.caseMode, CASES);
  const caseInsensitive = caseMode === "insensitive" || (caseMode === "smart" && !hasUpperCase(pattern, mode));
  try {
    compilePattern(pattern, { mode, caseInsensitive });
  } catch (e) {
    throw bad("search", "pattern", `is not a valid regular expression: ${(e as Error).message}`);
  }
  const maxMatches = cap("search", o, "maxMatches");
  return {
    pattern,
    mode,
    caseInsensitive,
    includeGlobs: globs("search", o, "includeGlobs"),
    excludeGlobs: globs("search", o, "excludeGlobs"),
    contextBefore: int("search", o, "contextBefore", { fallback: 0, min: 0, max: MAX_CONTEXT_LINES }),
    contextAfter: int("search", o, "contextAfter", { fallback: 0, min: 0, max: MAX_CONTEXT_LINES }),
    maxDepth: cap("search", o, "maxDepth"),
    maxEntries: cap("search", o, "maxEntries"),
    maxFiles: cap("search", o, "maxFiles"),
    maxBytes: cap("search", o, "maxBytes"),
    maxFileBytes: int("search", o, "maxFileBytes", { fallback: maxReadBytes, min: 1, max: maxReadBytes }),
    maxMatches,
    maxMatchesPerFile: int("search", o, "maxMatchesPerFile", { fallback: maxMatches, min: 1, max: BULK_CAPS.maxMatches[1] }),
    maxLineLength: int("search", o, "maxLineLength", { fallback: BULK_CAPS.maxLineLength[0], min: 16, max: BULK_CAPS.maxLineLength[1] }),
    maxMillis: cap("search", o, "maxMillis"),
    maxOutputChars: cap("search", o, "maxOutputChars"),
  };
}

/**
 * Smart case, as ripgrep reads it: an upper-case letter in the pattern itself makes the search
 * case-sensitive. In a regex, escapes (`\S`, `\W`, `\p{Lu}`) are not letters of the pattern.
 */
export function hasUpperCase(pattern: string, mode: FsSearchMode): boolean {
  const letters = mode === "regex" ? pattern.replace(/\\(?:[pPu]\{[^}]*\}|.)/gs, "") : pattern;
  return letters !== letters.toLowerCase();
}

function record(fn: string, raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw)) throw HostProxyError.invalidInput(`fs.${fn}: options must be a record, got ${describe(raw)}`);
  return raw as Record<string, unknown>;
}

function cap(fn: string, o: Record<string, unknown>, field: keyof typeof BULK_CAPS): number {
  const [fallback, max] = BULK_CAPS[field];
  return int(fn, o, field, { fallback, min: 1, max });
}

function int(fn: string, o: Record<string, unknown>, field: string, bounds: { fallback: number; min: number; max: number }): number {
  const value = o[field];
  if (value === undefined || value === null) return bounds.fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw bad(fn, field, `must be an integer from ${bounds.min} to ${bounds.max}, got ${typeof value === "number" ? value : describe(value)}`);
  }
  return value;
}

function globs(fn: string, o: Record<string, unknown>, field: string): string[] {
  return list(fn, o, field, MAX_GLOBS, (glob, at) => {
    if (typeof glob !== "string") throw bad(fn, at, `must be a string, got ${describe(glob)}`);
    try {
      compilePathGlob(glob);
    } catch (e) {
      throw bad(fn, at, `${JSON.stringify(glob.slice(0, 120))} is not a valid glob: ${(e as Error).message}`);
    }
    return glob;
  });
}

function list<T>(fn: string, o: Record<string, unknown>, field: string, max: number, item: (value: unknown, at: string) => T): T[] {
  const value = o[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad(fn, field, `must be a list, got ${describe(value)}`);
  if (value.length > max) throw bad(fn, field, `holds ${value.length} items; at most ${max} are allowed`);
  return value.map((v, i) => item(v, `${field}[${i}]`));
}

function oneOf<T extends string>(fn: string, field: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw bad(fn, field, `must be one of ${allowed.join(", ")}, got ${typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : describe(value)}`);
}

function bad(fn: string, field: string, reason: string): HostProxyError {
  return HostProxyError.invalidInput(`fs.${fn}: options.${field}: ${reason}`);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value;
}
