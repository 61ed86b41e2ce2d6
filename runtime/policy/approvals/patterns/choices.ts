import { canonicalValue, kindOf, matchArguments, resourceFields, valueAt } from "./glob.js";

/** A pattern over a tool's typed arguments: field path → glob. */
export interface PatternSpec {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, string>>;
}

export interface PatternChoice {
  readonly pattern: PatternSpec;
  readonly summary: string;
}

/**
 * The patterns a person may approve instead of this one call, narrowest first: each resource
 * argument exactly, then widened step by step (a file's folder, a folder's subtree, a mail
 * domain, a URL's path or query, a URL's host; an argv's path words to their subtree, then any
 * word, then any further words). A `cwd` stays exact: the relative paths of the call resolve
 * against it. Arguments that are not canonical offer nothing (a glob could never match them),
 * and a choice that would not cover the very call is dropped.
 */
export function patternChoices(tool: string, input: unknown): PatternChoice[] {
  const fields = resourceFields(input);
  if (fields.length === 0) return [];
  const steps = new Map<string, string[]>();
  for (const field of fields) {
    const widened = field === "cwd" || field.endsWith(".cwd") ? exactOnly(valueAt(input, field)) : widen(valueAt(input, field));
    if (widened === undefined) return [];
    steps.set(field, widened);
  }
  const depth = Math.max(...[...steps.values()].map((globs) => globs.length));
  const seen = new Set<string>();
  const out: PatternChoice[] = [];
  for (let level = 0; level < depth; level++) {
    const args = Object.fromEntries([...steps].map(([field, globs]) => [field, globs[Math.min(level, globs.length - 1)]!]));
    const key = JSON.stringify(args);
    if (seen.has(key) || !matchArguments(args, input)) continue;
    seen.add(key);
    out.push({ pattern: { tool, arguments: args }, summary: summarise({ tool, arguments: args }) });
  }
  return out;
}

export function summarise(pattern: PatternSpec): string {
  const parts = Object.entries(pattern.arguments).map(([field, glob]) => `${field} ${glob}`);
  return parts.length === 0 ? `${pattern.tool} (any arguments)` : `${pattern.tool} ${parts.join(", ")}`;
}

function exactOnly(value: unknown): string[] | undefined {
  const canonical = typeof value === "string" ? canonicalValue(value) : undefined;
  return canonical === undefined || canonical.includes("*") ? undefined : [canonical];
}

/** The globs, narrowest first, for one argument; `undefined` when it is not canonical. */
function widen(value: unknown): string[] | undefined {
  if (Array.isArray(value)) return widenList(value as unknown[]);
  if (typeof value !== "string") return undefined;
  const canonical = canonicalValue(value);
  if (canonical === undefined || canonical.includes("*")) return undefined;
  const kind = kindOf(canonical);
  if (kind === "path") {
    const slash = canonical.lastIndexOf("/");
    // `src/a.ts` widens within `src`; a relative path with no folder is only ever itself.
    if (slash <= 0 && !canonical.startsWith("/")) return [canonical];
    const dir = canonical.slice(0, slash);
    return [canonical, `${dir}/*`, `${dir}/**`];
  }
  if (kind === "email") return [canonical, `*@${canonical.slice(canonical.lastIndexOf("@") + 1)}`];
  if (kind === "text") return [canonical];
  const url = new URL(canonical);
  const dir = url.pathname.slice(0, url.pathname.lastIndexOf("/"));
  // A query (`?id=3`) is part of what the call asks for: its widest same-path form comes first.
  const path = url.search === "" ? `${url.origin}${dir}/*` : `${url.origin}${url.pathname}?*`;
  return [canonical, path, `${url.origin}${dir}/**`, `${url.origin}/**`];
}

/** An argv (or a list of recipients): its words exactly, then its path words widened, then any words. */
function widenList(items: unknown[]): string[] | undefined {
  if (items.some((item) => typeof item !== "string" || canonicalValue(item) === undefined || /\s|\*/.test(item))) return undefined;
  const words = items as string[];
  if (words.every((item) => kindOf(item) === "email")) {
    const domains = new Set(words.map((item) => item.slice(item.lastIndexOf("@") + 1).toLowerCase()));
    return domains.size === 1 ? [`*@${[...domains][0]}`] : undefined;
  }
  // The program and its subcommand (`git diff`) stay; a path word is never part of the head.
  const headLength = words.length > 1 && kindOf(words[1]!) === "text" ? 2 : 1;
  const head = words.slice(0, headLength);
  const rest = words.slice(headLength);
  const subtree = rest.map((word) => {
    if (kindOf(word) !== "path") return word;
    const slash = word.lastIndexOf("/");
    return slash <= 0 ? word : `${word.slice(0, slash)}/**`;
  });
  return [words.join(" "), [...head, ...subtree].join(" "), [...head, ...rest.map(() => "*")].join(" "), [...head, "**"].join(" ")];
}
