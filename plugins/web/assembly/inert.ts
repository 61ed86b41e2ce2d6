/**
 * Text from a search provider made inert before the model sees it: markup dropped (Brave marks
 * matches with `<strong>`, SearXNG engines pass HTML through), character references decoded,
 * controls and the invisible and bidirectional format characters removed (the set
 * runtime/text/inert.ts escapes for a person's screen; CVE-2021-42574), white space collapsed
 * to one line, and the length capped. One pass over bounded input.
 */
import { decodeEntities } from "./entities";

/** `text` as one plain line of at most `max` UTF-16 units (an ellipsis marks a cut). */
export function inertLine(text: string, max: i32): string {
  const plain = decodeEntities(dropTags(text));
  const parts = new Array<string>();
  let space = false;
  let length = 0;
  for (let i = 0; i < plain.length; i++) {
    const c = plain.charCodeAt(i);
    if (isSpace(c) || unsafe(c)) {
      space = length > 0;
      continue;
    }
    if (space) {
      parts.push(" ");
      length++;
      space = false;
    }
    parts.push(String.fromCharCode(c));
    length++;
    // Never between the two halves of a surrogate pair.
    if (length >= max && !(c >= 0xd800 && c <= 0xdbff)) {
      return parts.join("") + (i + 1 < plain.length ? "…" : "");
    }
  }
  return parts.join("");
}

/** `text` without anything between `<` and the next `>` when the `<` opens a tag or a comment. */
function dropTags(text: string): string {
  if (text.indexOf("<") < 0) return text;
  const parts = new Array<string>();
  let from = 0;
  let i = text.indexOf("<");
  while (i >= 0 && i + 1 < text.length) {
    const next = text.charCodeAt(i + 1);
    const tag = (next >= 0x41 && next <= 0x5a) || (next >= 0x61 && next <= 0x7a) || next == 0x2f || next == 0x21;
    if (!tag) {
      i = text.indexOf("<", i + 1);
      continue;
    }
    const end = text.indexOf(">", i + 1);
    if (end < 0) break;
    parts.push(text.substring(from, i));
    parts.push(" ");
    from = end + 1;
    i = text.indexOf("<", from);
  }
  parts.push(text.substring(from));
  return parts.join("");
}

function isSpace(c: i32): bool {
  return c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d || c == 0x0c || c == 0x0b || c == 0xa0 || c == 0x3000 || (c >= 0x2000 && c <= 0x200a);
}

/** runtime/text/inert.ts's UNSAFE set. */
function unsafe(c: i32): bool {
  return c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c == 0x061c || (c >= 0x200b && c <= 0x200f) || c == 0x2028 || c == 0x2029 ||
    (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x2069) || c == 0xfeff;
}
