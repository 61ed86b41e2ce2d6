/**
 * Rendering helpers shared by the CLI commands. Text shown to a person deciding an approval may
 * come from a model or a tool: controls and invisible format characters are shown inert so it
 * cannot rewrite the terminal or pass for a field it is not (CVE-2021-42574, Trojan Source).
 */
import { InvalidInputError } from "../errors.js";
import { OPAQUE, snakeKeys } from "../json/snake.js";
import { inert, jsonText } from "../text/inert.js";

/** The text room's inert rendering, re-exported for the commands that import it from here. */
export { inert, jsonText } from "../text/inert.js";

const MAX_LIMIT = 1000;

/** Data under these keys is printed as it is: a tool's input, an effect's arguments, grants. */
const JSON_DATA: ReadonlySet<string> = new Set([...OPAQUE, "effect", "requested_capabilities", "granted_capabilities"]);

/**
 * What every `--json` prints: the value in the API's names (snake_case), whether the command
 * went through a server or opened the store, as exact JSON text.
 */
export function jsonOut(value: unknown): string {
  return jsonText(snakeKeys(value, JSON_DATA));
}

export function flagText(values: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") throw new InvalidInputError(`--${name}: expected a value`, { field: name });
  return value;
}

export function parseLimit(text: string | undefined, fallback: number): number {
  const limit = text === undefined ? fallback : /^\d{1,7}$/.test(text) ? Number(text) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) throw new InvalidInputError(`--limit ${text}: expected a whole number from 1 to ${MAX_LIMIT}`, { field: "limit" });
  return limit;
}

const LABEL = 14;

/** `label: value`, a multi-line value indented under its first line, all of it inert. */
export function field(label: string, value: string): string[] {
  const [first = "", ...rest] = inert(value).split("\n");
  return [`  ${`${label}: `.padEnd(LABEL - 2)}${first}`, ...rest.map((line) => `${" ".repeat(LABEL)}${line}`)];
}

/**
 * One approval as the person deciding it needs it: the facts the approval binds (tool,
 * arguments, effect) first, then the free text a model or task supplied, last, so that text
 * cannot push the facts off screen or pose as one of them (its lines are indented under its label).
 */
