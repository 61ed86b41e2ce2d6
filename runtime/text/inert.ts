/**
 * Text that came from a model, a tool or a plugin, made safe to show a person. Controls and
 * invisible format characters are shown as escapes so such text cannot rewrite a terminal, pass
 * for a field it is not, or read differently from what it is (CVE-2021-42574, Trojan Source).
 * The CLI prints through these; the API answers approvals and plugin views through them.
 */

/**
 * Characters that must not reach a person's screen as they are: C0 controls (ESC starts the ANSI
 * sequences that clear or rewrite the screen, CR overwrites a line), DEL, C1 controls (U+009B is
 * a one-character CSI to some terminals), and the invisible and bidirectional format characters
 * that make text read differently from what it is. Newlines are handled by the caller.
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
 * same. The result is still valid JSON for the same value. `indent: 0` gives one line.
 */
export function jsonText(value: unknown, options: { indent?: number } = {}): string {
  const text = JSON.stringify(value, null, options.indent ?? 2) ?? "null";
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * A JSON value with every string in it — object keys too — passed through `inert`: for showing
 * structured data (a ToolCall's arguments) field by field. Lossy by design: the exact value is
 * what `jsonText` gives.
 */
export function inertJson(value: unknown): unknown {
  if (typeof value === "string") return inert(value);
  if (Array.isArray(value)) return value.map(inertJson);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [inert(key), inertJson(item)]));
  }
  return value;
}
