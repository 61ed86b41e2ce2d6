import { InvalidInputError } from "../errors.js";
import { describeProblem, formatPath, type JsonLimits, type JsonProblem } from "./limits.js";
import { scanJson } from "./scan.js";

export type Parsed = { ok: true; value: unknown } | { ok: false; problem: JsonProblem };

/**
 * `JSON.parse` of a text that first passed `scanJson`: a refusal names where the limit was
 * passed; malformed JSON is a `not-json` problem carrying the parser's message.
 */
export function parseBounded(text: string, limits: JsonLimits, options: { at?: string } = {}): Parsed {
  const problem = scanJson(text, limits, options);
  if (problem) return { ok: false, problem };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const path = formatPath(options.at ?? "", []);
    const detail = `malformed JSON: ${(error as Error).message}`;
    return { ok: false, problem: { code: "not-json", path, message: describeProblem("not-json", path, limits, detail) } };
  }
}

/**
 * For a command-line argument: the parsed value, or `InvalidInputError` whose message starts
 * with `at` (e.g. `--call files.read`) and says what was wrong; `malformed` words the start of
 * the message for text that is not JSON (default `${at}: not valid JSON`).
 */
export function parseArgument(text: string, limits: JsonLimits, options: { at: string; field: string; malformed?: string }): unknown {
  const problem = scanJson(text, limits, { at: options.at });
  if (problem) throw new InvalidInputError(problem.message, { field: options.field });
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidInputError(`${options.malformed ?? `${options.at}: not valid JSON`}: ${(error as Error).message}`, { field: options.field });
  }
}
