import { fail } from "../../sdk/index.js";

/**
 * Most characters of paths and lines a glob or grep asks the host for. The tool's answer must fit
 * the sandbox's result cap (4 MiB of JSON by default); JSON escaping and UTF-8 can make one
 * character several bytes, so the text is held well under it and the answer says `truncated`.
 */
export const MAX_OUTPUT_CHARS = 1 << 20;

/** Directories a search does not enter unless the caller names them. */
export const NOISY_DIRECTORIES: readonly string[] = [".git", "node_modules"];

/** The noisy directories none of `named` (a path, a pattern, a glob) mentions, as exclude globs. */
export function noisyExcludes(named: readonly string[]): string[] {
  return NOISY_DIRECTORIES.filter((name) => !named.some((text) => text.includes(name)));
}

/** A regular expression the model gave, compiled (JavaScript syntax) only to check it. */
export function compileRegExp(pattern: string, options: { field: string; caseInsensitive?: boolean }): RegExp {
  try {
    return new RegExp(pattern, options.caseInsensitive === true ? "i" : "");
  } catch (e) {
    throw fail.invalidInput(
      `${options.field} "${pattern}": is not a valid regular expression: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

const MAGIC = /[*?[{\\]/;

/** Whether a glob segment is plain text, with nothing to expand. */
export function isLiteralSegment(segment: string): boolean {
  return !MAGIC.test(segment);
}
