import { JsonArray, JsonKind, JsonObject, JsonString } from "../../sdk-as/index";

/**
 * Most characters of paths and lines a glob or grep asks the host for. The tool's answer must fit
 * the sandbox's result cap (4 MiB of JSON by default); JSON escaping and UTF-8 can make one
 * character several bytes, so the text is held well under it and the answer says `truncated`.
 */
export const MAX_OUTPUT_CHARS: i64 = 1 << 20;

/** Directories a search does not enter unless the caller names them. */
const NOISY_DIRECTORIES: string[] = [".git", "node_modules"];

/** The noisy directories none of `named` (a path, a pattern, a glob) mentions, as exclude globs. */
export function noisyExcludes(named: string[]): string[] {
  const out = new Array<string>();
  for (let i = 0; i < NOISY_DIRECTORIES.length; i++) {
    const name = unchecked(NOISY_DIRECTORIES[i]);
    let mentioned = false;
    for (let j = 0; j < named.length; j++) if (unchecked(named[j]).includes(name)) mentioned = true;
    if (!mentioned) out.push(name);
  }
  return out;
}

/** Whether a glob segment is plain text, with nothing to expand (none of `*?[{\`). */
export function isLiteralSegment(segment: string): bool {
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    if (c == 0x2a || c == 0x3f || c == 0x5b || c == 0x7b || c == 0x5c) return false;
  }
  return true;
}

/** The `exclude` field's strings; null when one of its items is not a string. */
export function excludesOf(input: JsonObject): string[] | null {
  const out = new Array<string>();
  const v = input.get("exclude");
  if (v == null || v.kind != JsonKind.Array) return out;
  const items = (<JsonArray>v).items;
  for (let i = 0; i < items.length; i++) {
    const item = unchecked(items[i]);
    if (item.kind != JsonKind.String) return null;
    out.push((<JsonString>item).value);
  }
  return out;
}

/** `a` then `b`, as one new list. */
export function concat(a: string[], b: string[]): string[] {
  const out = a.slice(0);
  for (let i = 0; i < b.length; i++) out.push(unchecked(b[i]));
  return out;
}
