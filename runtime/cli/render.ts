/**
 * Rendering helpers shared by the CLI commands. Text shown to a person deciding an approval may
 * come from a model or a tool: controls and invisible format characters are shown inert so it
 * cannot rewrite the terminal or pass for a field it is not (CVE-2021-42574, Trojan Source).
 */
import { InvalidInputError } from "../errors.js";

const MAX_LIMIT = 1000;

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

/**
 * Characters that must not reach a terminal as they are: C0 controls (ESC starts the ANSI
 * sequences that clear or rewrite the screen, CR overwrites a line), DEL, C1 controls (U+009B is
 * a one-character CSI to some terminals), and the invisible and bidirectional format characters
 * that make text read differently from what it is (Trojan Source, CVE-2021-42574). Newlines are
 * handled by the caller.
 */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]/gu;

/**
 * `text` with every unsafe character shown as an escape (`\u{1b}`), so what a model or a tool
 * wrote is displayed, never obeyed. `newlines: false` escapes `\n` too, for one-line output.
 */
export function inert(text: string, options: { newlines?: boolean } = {}): string {
  const escape = (c: string) => `\\u{${c.codePointAt(0)!.toString(16)}}`;
  const out = text.replace(UNSAFE, escape);
  return options.newlines === false ? out.replace(/\n/g, escape) : out;
}

/**
 * Pretty JSON that is also safe to print: `JSON.stringify` escapes C0 controls but passes C1 and
 * format characters through, and those can only sit inside strings, where `\uXXXX` means the
 * same. The result is still valid JSON for the same value.
 */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? "null";
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
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
