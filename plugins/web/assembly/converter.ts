/**
 * The Markdown side of the web plugin's converter: elements opened and closed, text written with
 * its white space collapsed and its Markdown syntax escaped, so a page cannot forge a heading or
 * a link the HTML does not have. The element stack is capped; output is linear in the input.
 */
import { decodeEntities } from "./entities";

/** Elements dropped with everything inside them. */
export const DROPPED = ["script", "style", "noscript", "template", "svg", "iframe", "head", "object", "canvas"];
/** Elements that start and end a block (a blank line around them). */
const BLOCKS = [
  "p", "div", "section", "article", "header", "footer", "main", "nav", "aside", "figure", "figcaption",
  "form", "fieldset", "address", "details", "summary", "dl", "dt", "dd", "table", "ul", "ol", "body", "html",
];
/** Deeper nesting than this is read as flat text: the stack stays bounded. */
const MAX_DEPTH = 256;

class ListContext {
  constructor(public ordered: bool, public next: i32) {}
}

class TableContext {
  rows: i32 = 0;
  cells: i32 = 0;
}

export class Converter {
  parts: string[] = [];
  /** Newlines wanted before the next content: 1 a line break, 2 a blank line. */
  pendingBreak: i32 = 0;
  pendingSpace: bool = false;
  atLineStart: bool = true;
  empty: bool = true;
  prefixes: string[] = [];
  marker: string | null = null;
  stack: string[] = [];
  lists: ListContext[] = [];
  tables: TableContext[] = [];
  links: string[] = [];
  pre: i32 = 0;
  code: i32 = 0;

  private linePrefix(): string {
    let p = "";
    const n = this.prefixes.length;
    const marker = this.marker;
    for (let i = 0; i < n; i++) p += i == n - 1 && marker != null ? marker : unchecked(this.prefixes[i]);
    this.marker = null;
    return p;
  }

  private flushBreaks(): void {
    if (this.empty) { this.pendingBreak = 0; return; }
    for (let i = 0; i < this.pendingBreak; i++) {
      this.parts.push("\n");
      // A blank line inside a quote keeps its `>`.
      if (i < this.pendingBreak - 1) {
        let quote = "";
        for (let q = 0; q < this.prefixes.length; q++) if (unchecked(this.prefixes[q]) == "> ") quote += ">";
        if (quote.length > 0) this.parts.push(quote);
      }
    }
    if (this.pendingBreak > 0) { this.atLineStart = true; this.pendingSpace = false; }
    this.pendingBreak = 0;
  }

  /** Content that opens or continues a line: breaks, the line's prefix and a pending space first. */
  emit(s: string): void {
    if (s.length == 0) return;
    this.flushBreaks();
    if (this.atLineStart) {
      const p = this.linePrefix();
      if (p.length > 0) this.parts.push(p);
      this.atLineStart = false;
      this.pendingSpace = false;
    } else if (this.pendingSpace) {
      this.parts.push(" ");
      this.pendingSpace = false;
    }
    this.parts.push(s);
    this.empty = false;
  }

  /** A closing marker (`**`, `_`, `](…)`): glued to what it closes; a pending space stays after it. */
  close(s: string): void {
    if (this.empty || this.atLineStart) return;
    this.parts.push(s);
  }

  /** Closes an inline span; one with nothing inside (`<b></b>`) leaves no marker at all. */
  closeSpan(opener: string, s: string): void {
    const n = this.parts.length;
    if (n > 0 && !this.atLineStart && unchecked(this.parts[n - 1]) == opener) {
      this.parts.pop();
      return;
    }
    this.close(s);
  }

  breakLine(n: i32): void {
    if (n > this.pendingBreak) this.pendingBreak = n;
  }

  text(raw: string): void {
    const s = decodeEntities(raw);
    if (this.pre > 0) { this.preText(s); return; }
    let i = 0;
    const n = s.length;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (isSpace(c)) { this.pendingSpace = true; i++; continue; }
      let j = i + 1;
      while (j < n && !isSpace(s.charCodeAt(j))) j++;
      const word = s.substring(i, j);
      this.emit(this.code > 0 ? word : escapeMarkdown(word, this.empty || this.pendingBreak > 0 || this.atLineStart));
      i = j;
    }
  }

  private preText(s: string): void {
    let start = 0;
    for (let i = 0; i <= s.length; i++) {
      if (i == s.length || s.charCodeAt(i) == 0x0a) {
        const line = s.substring(start, i);
        if (line.length > 0) {
          if (this.atLineStart) {
            const p = this.linePrefix();
            if (p.length > 0) this.parts.push(p);
            this.atLineStart = false;
          }
          this.parts.push(line);
          this.empty = false;
        }
        if (i < s.length) { this.parts.push("\n"); this.atLineStart = true; }
        start = i + 1;
      }
    }
  }

  open(name: string, attrs: Map<string, string>, selfClosing: bool): void {
    if (name == "br") { this.parts.push(this.pre > 0 ? "\n" : "  \n"); this.atLineStart = true; this.pendingSpace = false; return; }
    if (name == "hr") { this.breakLine(2); this.emit("---"); this.breakLine(2); return; }
    if (name == "img") {
      const src = attrs.has("src") ? attrs.get("src") : "";
      if (src.length > 0) this.emit("![" + escapeMarkdown(decodeEntities(attrs.has("alt") ? attrs.get("alt") : ""), false) + "](" + linkTarget(decodeEntities(src)) + ")");
      return;
    }
    if (selfClosing || isVoid(name) || this.stack.length >= MAX_DEPTH) return;
    this.stack.push(name);
    if (name.length == 2 && name.charCodeAt(0) == 0x68 && name.charCodeAt(1) >= 0x31 && name.charCodeAt(1) <= 0x36) {
      this.breakLine(2);
      this.emit("######".substring(0, name.charCodeAt(1) - 0x30));
      this.pendingSpace = true;
    } else if (name == "blockquote") {
      this.breakLine(2);
      this.prefixes.push("> ");
    } else if (name == "pre") {
      this.breakLine(2);
      this.emit("```");
      this.parts.push("\n");
      this.atLineStart = true;
      this.pre++;
    } else if (name == "ul" || name == "ol") {
      this.breakLine(this.lists.length > 0 ? 1 : 2);
      this.lists.push(new ListContext(name == "ol", attrs.has("start") ? I32.parseInt(attrs.get("start")) : 1));
    } else if (name == "li") {
      this.breakLine(1);
      let marker = "* ";
      if (this.lists.length > 0) {
        const list = unchecked(this.lists[this.lists.length - 1]);
        if (list.ordered) { marker = list.next.toString() + ". "; list.next++; }
      }
      this.prefixes.push(" ".repeat(marker.length));
      this.marker = marker;
    } else if (name == "tr") {
      this.breakLine(1);
      if (this.tables.length > 0) unchecked(this.tables[this.tables.length - 1]).cells = 0;
    } else if (name == "td" || name == "th") {
      if (this.tables.length > 0) {
        const t = unchecked(this.tables[this.tables.length - 1]);
        this.emit(t.cells == 0 ? "|" : " |");
        this.pendingSpace = true;
        t.cells++;
      }
    } else if (name == "strong" || name == "b") {
      this.emit("**");
      this.pendingSpace = false;
    } else if (name == "em" || name == "i") {
      this.emit("_");
      this.pendingSpace = false;
    } else if (name == "code" && this.pre == 0) {
      this.emit("`");
      this.pendingSpace = false;
      this.code++;
    } else if (name == "a") {
      const href = attrs.has("href") ? decodeEntities(attrs.get("href")) : "";
      this.links.push(href);
      if (href.length > 0) { this.emit("["); this.pendingSpace = false; }
    } else if (name == "table") {
      this.breakLine(2);
      this.tables.push(new TableContext());
    } else if (isBlock(name)) {
      this.breakLine(2);
    }
  }

  end(name: string): void {
    // Close up to the nearest open element of that name; a stray end tag closes nothing.
    let at = this.stack.length - 1;
    while (at >= 0 && unchecked(this.stack[at]) != name) at--;
    if (at < 0) return;
    while (this.stack.length > at) this.closeTop(this.stack.pop());
  }

  private closeTop(name: string): void {
    if (name.length == 2 && name.charCodeAt(0) == 0x68 && name.charCodeAt(1) >= 0x31 && name.charCodeAt(1) <= 0x36) this.breakLine(2);
    else if (name == "blockquote") { this.prefixes.pop(); this.breakLine(2); }
    else if (name == "pre") {
      this.pre--;
      if (!this.atLineStart) { this.parts.push("\n"); this.atLineStart = true; }
      this.emit("```");
      this.breakLine(2);
    } else if (name == "ul" || name == "ol") { this.lists.pop(); this.breakLine(this.lists.length > 0 ? 1 : 2); }
    else if (name == "li") { this.prefixes.pop(); this.marker = null; this.breakLine(1); }
    else if (name == "tr") {
      if (this.tables.length > 0) {
        const t = unchecked(this.tables[this.tables.length - 1]);
        if (t.cells > 0) {
          this.close(" |");
          if (t.rows == 0) {
            this.breakLine(1);
            this.emit("|" + " --- |".repeat(t.cells));
          }
          t.rows++;
        }
      }
      this.breakLine(1);
    } else if (name == "strong" || name == "b") this.closeSpan("**", "**");
    else if (name == "em" || name == "i") this.closeSpan("_", "_");
    else if (name == "code" && this.pre == 0 && this.code > 0) { this.code--; this.closeSpan("`", "`"); }
    else if (name == "a") {
      const href = this.links.length > 0 ? this.links.pop() : "";
      if (href.length > 0) this.closeSpan("[", "](" + linkTarget(href) + ")");
    } else if (name == "table") { if (this.tables.length > 0) this.tables.pop(); this.breakLine(2); }
    else if (isBlock(name)) this.breakLine(2);
  }

  result(): string {
    while (this.stack.length > 0) this.closeTop(this.stack.pop());
    return this.parts.join("").trim();
  }
}

export function isSpace(c: i32): bool {
  return c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d || c == 0x0c;
}

function isBlock(name: string): bool {
  return BLOCKS.includes(name);
}

function isVoid(name: string): bool {
  return name == "meta" || name == "link" || name == "input" || name == "source" || name == "wbr" || name == "area" ||
    name == "base" || name == "col" || name == "embed" || name == "param" || name == "track";
}

/** A link target that cannot end the Markdown link early: spaces and parentheses percent-encoded. */
function linkTarget(href: string): string {
  return href.replaceAll(" ", "%20").replaceAll("(", "%28").replaceAll(")", "%29").replaceAll("\n", "");
}

/** Markdown syntax in a word escaped; at a line's start, also what would open a block. */
function escapeMarkdown(word: string, lineStart: bool): string {
  let out: string[] | null = null;
  let run = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    let escape = c == 0x5c || c == 0x2a || c == 0x5f || c == 0x60 || c == 0x5b || c == 0x5d || c == 0x3c;
    if (!escape && lineStart && i == 0) escape = c == 0x23 || c == 0x3e || c == 0x2d || c == 0x2b || c == 0x7c;
    if (!escape) continue;
    if (out == null) out = new Array<string>();
    out.push(word.substring(run, i));
    out.push("\\");
    run = i;
  }
  if (out == null) return word;
  out.push(word.substring(run));
  return out.join("");
}

