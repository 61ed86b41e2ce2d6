import { fail } from "../../sdk/index.js";
import { globToRegExp } from "./glob-to-regexp.js";

/** A glob the model gave, compiled; a pattern the engine refuses is the model's `invalid-input`. */
export function compileGlob(glob: string, field: string): RegExp {
  if (glob === "") throw fail.invalidInput(`${field}: must not be empty`);
  try {
    return globToRegExp(glob);
  } catch (e) {
    throw fail.invalidInput(`${field} "${glob}": is not a valid glob: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** A regular expression the model gave, compiled (JavaScript syntax). */
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
