/**
 * Matching a pattern's globs against a ToolCall's arguments, on canonical values only. An argument
 * that is not already in its one canonical spelling (a path with `.`/`..` segments, percent
 * escapes or backslashes; a host with a trailing dot; text not in NFC; invisible, bidirectional
 * or non-ASCII characters where a lookalike could hide) never matches a glob: the call falls back
 * to asking a person, who sees it as it is. Refusing to match is always safe; matching a
 * lookalike is not.
 */

/** How a value is compared: each kind has its own canonical form and its own `*`. */
export type ValueKind = "path" | "email" | "url" | "text";

const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u;
const EMAIL = /^[^@\s]+@[^@\s]+$/;
const URL_START = /^[a-z][a-z0-9+.-]*:\/\//i;

export function kindOf(value: string): ValueKind {
  // A relative path (`docs/../x`, `..\\x`) is a path too: it has no canonical spelling here.
  if (value.startsWith("/") || (!/\s/.test(value) && /[/\\]/.test(value) && !URL_START.test(value))) return "path";
  if (URL_START.test(value)) return "url";
  if (EMAIL.test(value)) return "email";
  return "text";
}

/** True when `value` is a resource a pattern must name (a path, an address, a URL, an argv). */
export function isResource(value: unknown): boolean {
  if (typeof value === "string") return kindOf(value) !== "text";
  // A list of words is an argv or a list of recipients: what a call acts on, so it must be named.
  return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "string");
}

/**
 * The canonical spelling of `value`, or `undefined` when it has none a glob may match: the
 * argument is then only ever approved by a person looking at it.
 */
export function canonicalValue(value: string): string | undefined {
  if (value.normalize("NFC") !== value || INVISIBLE.test(value)) return undefined;
  // Lookalikes (Cyrillic а for Latin a, fullwidth solidus…) are refused, not folded.
  if (/[^\x20-\x7e]/.test(value)) return undefined;
  const kind = kindOf(value);
  if (kind === "path") return canonicalPath(value);
  if (kind === "email") return canonicalEmail(value);
  if (kind === "url") return canonicalUrl(value);
  return value;
}

/**
 * A relative path (`src/a.ts`) resolves against the call's cwd or the first mount, both inside
 * the grant, so it is canonical when nothing in it can climb out or read as something else:
 * plain segments of letters, digits and `._@+-`, none `.` or `..`, not starting with `-` (an
 * option) or `~` (a home), no `:` (`HEAD:x`, `file:`), no `=` (`if=/etc/passwd` is an absolute path).
 */
const RELATIVE_SEGMENT = /^[A-Za-z0-9._@+-]+$/;

function canonicalRelative(value: string): string | undefined {
  const trimmed = value.endsWith("/") ? value.slice(0, -1) : value;
  if (/^[-~]/.test(trimmed)) return undefined;
  const segments = trimmed.split("/");
  if (segments.some((s) => s === "." || s === ".." || !RELATIVE_SEGMENT.test(s))) return undefined;
  return trimmed;
}

function canonicalPath(value: string): string | undefined {
  if (!value.startsWith("/")) return value.includes("%") || value.includes("\\") ? undefined : canonicalRelative(value);
  if (value.includes("%") || value.includes("\\")) return undefined;
  const segments = value.slice(1).split("/");
  if (segments.some((s, i) => s === "." || s === ".." || (s === "" && i < segments.length - 1))) return undefined;
  return value.length > 1 && value.endsWith("/") ? value.slice(0, -1) : value;
}

function canonicalEmail(value: string): string | undefined {
  const at = value.lastIndexOf("@");
  const domain = value.slice(at + 1).toLowerCase();
  if (domain.endsWith(".") || domain.startsWith(".") || domain.includes("..")) return undefined;
  return `${value.slice(0, at)}@${domain}`;
}

function canonicalUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  // `%2e%2e` is `..` to some servers; a trailing-dot host is another name for the same host.
  if (/%2e|%2f|%5c/i.test(value) || url.hostname.endsWith(".") || url.username !== "" || url.password !== "") return undefined;
  if (url.href !== value && url.href !== `${value}/`) return undefined;
  return url.href;
}

/** The glob as written by a person, made canonical the way values are (lower-cased mail domain). */
export function canonicalGlob(glob: string): string {
  const kind = kindOf(glob);
  if (kind === "email") {
    const at = glob.lastIndexOf("@");
    return `${glob.slice(0, at)}@${glob.slice(at + 1).toLowerCase()}`;
  }
  if (kind === "url") {
    const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/]*)(.*)$/i.exec(glob);
    if (m) return `${m[1]!.toLowerCase()}${m[2]!.toLowerCase()}${m[3] ?? ""}`;
  }
  return glob;
}

/**
 * `*` stays within one path segment, one address's local part or one URL segment (after a URL's
 * `?`, within its query: `https://h/items?*`); `**` crosses them.
 */
function globRegex(glob: string, kind: ValueKind): RegExp {
  let one = kind === "path" ? "[^/]*" : kind === "email" ? "[^@]*" : kind === "url" ? "[^/?#]*" : ".*";
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === "*" && glob[i + 1] === "*") {
      source += ".*";
      i++;
    } else if (ch === "*") {
      source += one;
    } else {
      if (kind === "url" && ch === "?") one = "[^#]*";
      source += ch.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
    }
  }
  return new RegExp(`^${source}$`, "s");
}

/** One string against one glob, both canonical; a non-canonical value never matches. */
export function matchString(glob: string, value: string): boolean {
  const canonical = canonicalValue(value);
  if (canonical === undefined) return false;
  const g = canonicalGlob(glob);
  if (!g.includes("*")) return g === canonical;
  return globRegex(g, kindOf(g)).test(canonical);
}

/**
 * A glob against an argument. A string is matched as above. A list: a glob with spaces is an argv
 * pattern, token for token (`*` one token, a final `**` any further tokens), so `git status`
 * never covers `git status --porcelain`; a glob without spaces must match every element.
 * Numbers and booleans match their exact text only.
 */
export function matchValue(glob: string, value: unknown): boolean {
  if (typeof value === "string") return matchString(glob, value);
  if (typeof value === "number" || typeof value === "boolean") return !glob.includes("*") && glob === String(value);
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === "string")) return false;
  const items = value as string[];
  if (!/\s/.test(glob)) return items.every((item) => matchString(glob, item));
  return matchArgv(glob.trim().split(/\s+/), items);
}

function matchArgv(tokens: string[], argv: string[]): boolean {
  const rest = tokens.at(-1) === "**";
  const fixed = rest ? tokens.slice(0, -1) : tokens;
  if (rest ? argv.length < fixed.length : argv.length !== fixed.length) return false;
  if (rest && argv.slice(fixed.length).some((arg) => canonicalValue(arg) === undefined)) return false;
  return fixed.every((token, i) => matchString(token, argv[i]!));
}

/** The value at a dotted field path (`to`, `message.to`), or `undefined`. */
export function valueAt(input: unknown, path: string): unknown {
  let here: unknown = input;
  for (const key of path.split(".")) {
    if (here === null || typeof here !== "object" || Array.isArray(here) || !Object.hasOwn(here, key)) return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

/** Every leaf field path of an object whose value is a resource (see `isResource`). */
export function resourceFields(input: unknown, prefix = "", depth = 0): string[] {
  if (input === null || typeof input !== "object" || Array.isArray(input) || depth > 8) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    if (isResource(value)) out.push(path);
    else out.push(...resourceFields(value, path, depth + 1));
  }
  return out;
}

/**
 * True when every glob of `globs` matches its field and no resource field of `input` is left
 * unnamed: a pattern for `to` does not let a call through with an unnamed `bcc`.
 */
export function matchArguments(globs: Readonly<Record<string, string>>, input: unknown): boolean {
  for (const [path, glob] of Object.entries(globs)) {
    if (!matchValue(glob, valueAt(input, path))) return false;
  }
  return resourceFields(input).every((path) => Object.hasOwn(globs, path));
}
