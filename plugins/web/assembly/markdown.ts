/**
 * HTML to Markdown in the guest: one pass over the page, linear in its length, with the element
 * stack capped (converter.ts), so a hostile page costs at most a bounded walk (the host has
 * already capped the body at max_bytes, and the call runs under its deadline in the sandbox).
 * Scripts, styles and other inert containers are dropped with their content.
 */
import { Converter, DROPPED, isSpace } from "./converter";

/** The page as Markdown. */
export function htmlToMarkdown(html: string): string {
  // ASCII only: a Unicode lowering may change the length, and the indices must match the page's.
  const lower = asciiLower(html);
  const c = new Converter();
  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf("<", i);
    if (lt < 0) { c.text(html.substring(i)); break; }
    if (lt > i) c.text(html.substring(i, lt));
    i = lt;
    const next = lt + 1 < n ? html.charCodeAt(lt + 1) : 0;
    if (next == 0x21 /* ! */) {
      if (lower.startsWith("<!--", lt)) {
        const endAt = html.indexOf("-->", lt + 4);
        i = endAt < 0 ? n : endAt + 3;
      } else {
        const gt = html.indexOf(">", lt);
        i = gt < 0 ? n : gt + 1;
      }
      continue;
    }
    if (next == 0x3f /* ? */) {
      const gt = html.indexOf(">", lt);
      i = gt < 0 ? n : gt + 1;
      continue;
    }
    const closing = next == 0x2f;
    const nameStart = closing ? lt + 2 : lt + 1;
    if (nameStart >= n || !isLetter(html.charCodeAt(nameStart))) {
      c.text("<");
      i = lt + 1;
      continue;
    }
    let j = nameStart;
    while (j < n && isNameChar(html.charCodeAt(j))) j++;
    const name = lower.substring(nameStart, j);
    if (closing) {
      const gt = html.indexOf(">", j);
      i = gt < 0 ? n : gt + 1;
      c.end(name);
      continue;
    }
    const attrs = new Map<string, string>();
    let selfClosing = false;
    // Attributes: name, optional `=` and a quoted or bare value, up to `>`.
    while (j < n) {
      const ch = html.charCodeAt(j);
      if (ch == 0x3e) { j++; break; }
      if (ch == 0x2f) { selfClosing = j + 1 < n && html.charCodeAt(j + 1) == 0x3e; j++; continue; }
      if (isSpace(ch)) { j++; continue; }
      const an = j;
      while (j < n && !isSpace(html.charCodeAt(j)) && html.charCodeAt(j) != 0x3d && html.charCodeAt(j) != 0x3e && html.charCodeAt(j) != 0x2f) j++;
      const attrName = lower.substring(an, j);
      if (j == an) { j++; continue; }
      while (j < n && isSpace(html.charCodeAt(j))) j++;
      let value = "";
      if (j < n && html.charCodeAt(j) == 0x3d) {
        j++;
        while (j < n && isSpace(html.charCodeAt(j))) j++;
        const q = j < n ? html.charCodeAt(j) : 0;
        if (q == 0x22 || q == 0x27) {
          const endQ = html.indexOf(String.fromCharCode(q), j + 1);
          const stop = endQ < 0 ? n : endQ;
          value = html.substring(j + 1, stop);
          j = endQ < 0 ? n : endQ + 1;
        } else {
          const vs = j;
          while (j < n && !isSpace(html.charCodeAt(j)) && html.charCodeAt(j) != 0x3e) j++;
          value = html.substring(vs, j);
        }
      }
      if (!attrs.has(attrName)) attrs.set(attrName, value);
    }
    i = j;
    if (DROPPED.includes(name)) {
      if (!selfClosing) {
        const endAt = lower.indexOf("</" + name, i);
        if (endAt < 0) i = n;
        else {
          const gt = html.indexOf(">", endAt);
          i = gt < 0 ? n : gt + 1;
        }
      }
      continue;
    }
    c.open(name, attrs, selfClosing);
  }
  return c.result();
}

function isLetter(c: i32): bool {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

function isNameChar(c: i32): bool {
  return isLetter(c) || (c >= 0x30 && c <= 0x39) || c == 0x2d || c == 0x3a || c == 0x5f;
}

/** `s` with A-Z lowered and nothing else changed, so every index stays valid. */
function asciiLower(s: string): string {
  const size = <usize>s.length << 1;
  const out = changetype<string>(__new(size, idof<String>()));
  memory.copy(changetype<usize>(out), changetype<usize>(s), size);
  const end = changetype<usize>(out) + size;
  for (let p = changetype<usize>(out); p < end; p += 2) {
    const c = load<u16>(p);
    if (c >= 0x41 && c <= 0x5a) store<u16>(p, c + 0x20);
  }
  return out;
}
