/**
 * A syntax check of a JavaScript regular expression (ECMAScript 2023 §22.2.1 with Annex B.1.2, the
 * grammar without the `u` flag), so a bad `pattern` is refused with a message naming the field
 * before any host call. AssemblyScript has no RegExp; the host compiles the pattern again and
 * runs it, so this check only has to refuse what every engine refuses: where it is unsure (a
 * newer syntax), it lets the pattern through and the host's own check answers.
 *
 * Messages are V8's: `Invalid regular expression: /(/: Unterminated group`.
 */

/** Why `pattern` is not a regular expression, or null when it is one. */
export function regExpProblem(pattern: string): string | null {
  const p = new Checker(pattern);
  p.disjunction();
  if (p.problem == null && p.at < pattern.length) p.fail("Unmatched ')'");
  const problem = p.problem;
  return problem == null ? null : "Invalid regular expression: /" + pattern + "/: " + problem;
}

/** What may follow a term: a quantifier (YES), nothing to repeat (NO), or a lookbehind's "Invalid quantifier". */
const YES = 1;
const NO = 0;
const LOOKBEHIND = 2;

class Checker {
  at: i32 = 0;
  depth: i32 = 0;
  problem: string | null = null;
  constructor(public text: string) {}

  fail(message: string): void {
    if (this.problem == null) this.problem = message;
    this.at = this.text.length;
  }

  peek(offset: i32 = 0): i32 {
    const i = this.at + offset;
    return i < this.text.length ? this.text.charCodeAt(i) : -1;
  }

  /** Alternatives up to an unmatched `)` or the end. */
  disjunction(): void {
    while (this.problem == null) {
      this.alternative();
      if (this.peek() != 0x7c) return; // |
      this.at++;
    }
  }

  alternative(): void {
    while (this.problem == null && this.at < this.text.length) {
      const c = this.peek();
      if (c == 0x7c || c == 0x29) return; // | )
      const quantifiable = this.term();
      if (this.problem != null) return;
      if (this.quantifier()) {
        if (quantifiable == LOOKBEHIND) { this.fail("Invalid quantifier"); return; }
        if (quantifiable == NO) { this.fail("Nothing to repeat"); return; }
        // A second quantifier has nothing to repeat (`a**`); a lazy `?` was already taken.
        if (this.startsQuantifier()) { this.fail("Nothing to repeat"); return; }
      }
    }
  }

  /** One term; whether a quantifier may follow it (YES, NO, or LOOKBEHIND: never). */
  term(): i32 {
    const c = this.peek();
    switch (c) {
      case 0x5e: case 0x24: this.at++; return NO; // ^ $
      case 0x2a: case 0x2b: case 0x3f: this.fail("Nothing to repeat"); return NO; // * + ?
      case 0x7b: // {
        if (this.bracedQuantifier(false)) { this.fail("Nothing to repeat"); return NO; }
        this.at++;
        return YES;
      case 0x5c: return this.escape() ? YES : NO;
      case 0x5b: this.characterClass(); return YES;
      case 0x28: return this.group();
    }
    this.at++;
    return YES;
  }

  /** After `\`: an assertion (`\b`, `\B`) is not quantifiable. */
  escape(): bool {
    this.at++;
    const c = this.peek();
    if (c < 0) { this.fail("\\ at end of pattern"); return false; }
    this.at++;
    if (c == 0x62 || c == 0x42) return false; // \b \B
    if (c == 0x63) { // \c: a control letter, or a literal backslash and c
      const l = this.peek();
      if ((l >= 0x41 && l <= 0x5a) || (l >= 0x61 && l <= 0x7a)) this.at++;
    }
    return true;
  }

  group(): i32 {
    this.at++;
    let quantifiable = YES;
    if (this.peek() == 0x3f) { // (?
      const k = this.peek(1);
      if (k == 0x3a || k == 0x3d || k == 0x21) { // (?: (?= (?!
        this.at += 2;
      } else if (k == 0x3c && (this.peek(2) == 0x3d || this.peek(2) == 0x21)) { // (?<= (?<!
        this.at += 3;
        quantifiable = LOOKBEHIND;
      } else if (k == 0x3c) { // (?<name>
        this.at += 2;
        if (!this.groupName()) { this.fail("Invalid capture group name"); return NO; }
      } else {
        this.fail("Invalid group");
        return NO;
      }
    }
    this.depth++;
    this.disjunction();
    if (this.problem != null) return NO;
    if (this.peek() != 0x29) { this.fail("Unterminated group"); return NO; }
    this.at++;
    this.depth--;
    return quantifiable;
  }

  /** An identifier and its closing `>`; any non-ASCII character is let through as part of a name. */
  groupName(): bool {
    let n = 0;
    while (true) {
      const c = this.peek();
      if (c < 0) return false;
      if (c == 0x3e) { this.at++; return n > 0; }
      const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x5f || c == 0x24 || c >= 0x80;
      const digit = c >= 0x30 && c <= 0x39;
      if (!letter && !(digit && n > 0) && c != 0x5c) return false;
      this.at++;
      n++;
    }
  }

  /** Whether a quantifier starts here (`*`, `+`, `?`, or a well-formed `{n,m}`). */
  startsQuantifier(): bool {
    const c = this.peek();
    if (c == 0x2a || c == 0x2b || c == 0x3f) return true;
    return c == 0x7b && this.bracedQuantifier(false);
  }

  /** Reads a quantifier and its lazy `?`, if one is here. */
  quantifier(): bool {
    const c = this.peek();
    if (c == 0x2a || c == 0x2b || c == 0x3f) this.at++;
    else if (c != 0x7b || !this.bracedQuantifier(true)) return false;
    if (this.problem != null) return false;
    if (this.peek() == 0x3f) this.at++;
    return true;
  }

  /** Whether `{n}`, `{n,}` or `{n,m}` is here; with `take`, reads it and checks the order of its numbers. */
  bracedQuantifier(take: bool): bool {
    let i = this.at + 1;
    const text = this.text;
    const from = i;
    while (i < text.length && isDigit(text.charCodeAt(i))) i++;
    if (i == from) return false;
    const min = parseFloat(text.substring(from, i));
    let max = min;
    if (i < text.length && text.charCodeAt(i) == 0x2c) {
      i++;
      const maxFrom = i;
      while (i < text.length && isDigit(text.charCodeAt(i))) i++;
      max = i == maxFrom ? Infinity : parseFloat(text.substring(maxFrom, i));
    }
    if (i >= text.length || text.charCodeAt(i) != 0x7d) return false;
    if (take) {
      this.at = i + 1;
      if (max < min) this.fail("numbers out of order in {} quantifier");
    }
    return true;
  }

  /** `[...]`: ranges of two single characters must be in order. */
  characterClass(): void {
    this.at++;
    if (this.peek() == 0x5e) this.at++;
    while (true) {
      const c = this.peek();
      if (c < 0) { this.fail("Unterminated character class"); return; }
      if (c == 0x5d) { this.at++; return; }
      const low = this.classAtom();
      if (this.problem != null) return;
      if (this.peek() == 0x2d && this.peek(1) != 0x5d && this.peek(1) >= 0) {
        this.at++;
        const high = this.classAtom();
        if (this.problem != null) return;
        // -2: a class escape (\d, \w…): Annex B takes the range's `-` literally.
        if (low >= 0 && high >= 0 && low > high) { this.fail("Range out of order in character class"); return; }
      }
    }
  }

  /** One class atom's character code; -2 for a class escape, -1 when not known here. */
  classAtom(): i32 {
    const c = this.peek();
    if (c < 0) { this.fail("Unterminated character class"); return -1; }
    this.at++;
    if (c != 0x5c) return c;
    const e = this.peek();
    if (e < 0) { this.fail("\\ at end of pattern"); return -1; }
    this.at++;
    switch (e) {
      case 0x64: case 0x44: case 0x77: case 0x57: case 0x73: case 0x53: return -2; // \d \D \w \W \s \S
      case 0x62: return 0x08;
      case 0x66: return 0x0c;
      case 0x6e: return 0x0a;
      case 0x72: return 0x0d;
      case 0x74: return 0x09;
      case 0x76: return 0x0b;
      case 0x78: return this.hex(2, e);
      case 0x75: return this.hex(4, e);
      case 0x63: {
        const l = this.peek();
        if ((l >= 0x41 && l <= 0x5a) || (l >= 0x61 && l <= 0x7a) || isDigit(l) || l == 0x5f) {
          this.at++;
          return l & 0x1f;
        }
        return -1;
      }
    }
    if (isDigit(e)) {
      // Legacy octal: up to three digits, below 0o400.
      let v = e - 0x30;
      if (v > 7) return e;
      for (let k = 0; k < 2 && isDigit(this.peek()) && this.peek() < 0x38; k++) {
        const next = v * 8 + (this.peek() - 0x30);
        if (next > 0xff) break;
        v = next;
        this.at++;
      }
      return v;
    }
    return e;
  }

  /** `\xHH` or `\uHHHH`; without its digits, the letter itself (Annex B). */
  hex(digits: i32, letter: i32): i32 {
    let v = 0;
    for (let k = 0; k < digits; k++) {
      const h = hexValue(this.peek(k));
      if (h < 0) return letter;
      v = v * 16 + h;
    }
    this.at += digits;
    return v;
  }
}

function isDigit(c: i32): bool {
  return c >= 0x30 && c <= 0x39;
}

function hexValue(c: i32): i32 {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}
