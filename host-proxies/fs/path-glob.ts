/**
 * Path globs of the bulk walk (`walk`, `search`: include and exclude filters). A glob is an
 * anchored regular expression over `/`-separated paths below the walk's root:
 *
 * | glob | matches |
 * |---|---|
 * | `*` | any run of characters except `/` (dot files included) |
 * | `**` as a whole segment | any number of directories (`a/**\/b` matches `a/b`, `a/x/y/b`); at the end, everything below |
 * | `?` | one character except `/` |
 * | `[abc]`, `[a-z]`, `[!a-z]` / `[^a-z]` | one character of (not of) the set, never `/` |
 * | `{a,b}` | either alternative; alternatives may hold patterns and nest |
 * | `\x` | `x` literally |
 *
 * An unclosed `[` or `{` is literal. Throws a `SyntaxError` for a class the regular
 * expression engine refuses (e.g. the range `[z-a]`).
 *
 * As in gitignore, a glob with a `/` is matched against the whole path below the root (a leading
 * `/` only anchors it there), one without against the entry's name at any depth: `*.ts` finds
 * `a.ts` and `src/b.ts`, `/*.ts` only `a.ts`. The regular expressions run in the bulk worker,
 * under its deadline: a glob like `*a*a*a*a*b` backtracks, and is input like any other.
 */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${new GlobTranslator(glob).translate()}$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A literal character inside a regular-expression class. */
function escapeClassMember(c: string): string {
  return c.replace(/[\\\]\[^-]/, "\\$&");
}

class GlobTranslator {
  readonly #glob: string;
  #i = 0;

  constructor(glob: string) {
    this.#glob = glob;
  }

  translate(): string {
    return this.#sequence(false);
  }

  /** Translates up to the end, or inside braces up to the next top-level `,` or `}`. */
  #sequence(inBraces: boolean): string {
    let out = "";
    while (this.#i < this.#glob.length) {
      const c = this.#glob.charAt(this.#i);
      if (inBraces && (c === "," || c === "}")) return out;
      if (c === "\\" && this.#i + 1 < this.#glob.length) {
        out += escapeRegExp(this.#glob.charAt(this.#i + 1));
        this.#i += 2;
      } else if (c === "*") {
        out += this.#star();
      } else if (c === "?") {
        out += "[^/]";
        this.#i += 1;
      } else if (c === "[") {
        out += this.#characterClass();
      } else if (c === "{") {
        out += this.#braces();
      } else {
        out += escapeRegExp(c);
        this.#i += 1;
      }
    }
    return out;
  }

  #star(): string {
    const start = this.#i;
    while (this.#glob.charAt(this.#i) === "*") this.#i += 1;
    const wholeSegment =
      this.#i - start >= 2 &&
      (start === 0 || this.#glob.charAt(start - 1) === "/") &&
      (this.#i === this.#glob.length || this.#glob.charAt(this.#i) === "/");
    if (!wholeSegment) return "[^/]*";
    if (this.#i === this.#glob.length) return ".*";
    this.#i += 1; // the `/` after `**`: `**/` is zero or more whole directories.
    return "(?:[^/]+/)*";
  }

  #characterClass(): string {
    const glob = this.#glob;
    let j = this.#i + 1;
    const negate = glob.charAt(j) === "!" || glob.charAt(j) === "^";
    if (negate) j += 1;
    let body = "";
    // A `]` right after the opening bracket is a member, not the end.
    if (glob.charAt(j) === "]") {
      body += "\\]";
      j += 1;
    }
    while (j < glob.length && glob.charAt(j) !== "]") {
      const c = glob.charAt(j);
      if (c === "\\" && j + 1 < glob.length) {
        body += escapeClassMember(glob.charAt(j + 1));
        j += 2;
      } else {
        // `-` stays a range operator; every other character is itself.
        body += c === "-" ? "-" : escapeClassMember(c);
        j += 1;
      }
    }
    if (j >= glob.length) {
      this.#i += 1;
      return "\\[";
    }
    this.#i = j + 1;
    // Neither form may match the path separator.
    return negate ? `[^/${body}]` : `(?!/)[${body}]`;
  }

  #braces(): string {
    const open = this.#i;
    this.#i += 1;
    const alternatives: string[] = [];
    for (;;) {
      alternatives.push(this.#sequence(true));
      const c = this.#glob.charAt(this.#i);
      if (c === ",") {
        this.#i += 1;
      } else if (c === "}") {
        this.#i += 1;
        return `(?:${alternatives.join("|")})`;
      } else {
        // Unclosed: the `{` is literal; translate what follows it afresh.
        this.#i = open + 1;
        return "\\{";
      }
    }
  }
}

/** Longest glob accepted: a filter, not a program. */
export const MAX_GLOB_CHARS = 1024;

export interface PathGlob {
  readonly glob: string;
  /** Whether the entry at `relative` (below the root; its name is the last segment) matches. */
  matches(relative: string, name: string): boolean;
}

/** Compiles one glob; throws `SyntaxError` with a sentence-case reason for a bad one. */
export function compilePathGlob(glob: string): PathGlob {
  if (glob === "") throw new SyntaxError("must not be empty");
  if (glob.length > MAX_GLOB_CHARS) throw new SyntaxError(`is longer than ${MAX_GLOB_CHARS} characters`);
  const anchored = glob.startsWith("/");
  const body = anchored ? glob.replace(/^\/+/, "") : glob;
  if (body === "") throw new SyntaxError("names nothing below the root");
  const regex = globToRegExp(body);
  const onPath = anchored || body.includes("/");
  return { glob, matches: onPath ? (relative) => regex.test(relative) : (_relative, name) => regex.test(name) };
}
