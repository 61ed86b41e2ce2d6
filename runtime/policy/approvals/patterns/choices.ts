import { canonicalValue, kindOf, resourceFields, valueAt } from "./glob.js";

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
 * argument exactly, then each widened one step (a file's folder, a folder's subtree, a mail
 * domain, a URL's host, an argv's first words). Arguments that are not canonical offer nothing
 * (a glob could never match them anyway).
 */
export function patternChoices(tool: string, input: unknown): PatternChoice[] {
  const fields = resourceFields(input);
  if (fields.length === 0) return [];
  const levels: Array<Record<string, string>> = [{}, {}, {}];
  for (const field of fields) {
    const widened = widen(valueAt(input, field));
    if (widened === undefined) return [];
    widened.forEach((glob, i) => (levels[i]![field] = glob));
  }
  const seen = new Set<string>();
  const out: PatternChoice[] = [];
  for (const args of levels) {
    const key = JSON.stringify(args);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pattern: { tool, arguments: args }, summary: summarise({ tool, arguments: args }) });
  }
  return out;
}

export function summarise(pattern: PatternSpec): string {
  const parts = Object.entries(pattern.arguments).map(([field, glob]) => `${field} ${glob}`);
  return parts.length === 0 ? `${pattern.tool} (any arguments)` : `${pattern.tool} ${parts.join(", ")}`;
}

/** Three globs, narrowest first, for one argument; `undefined` when it is not canonical. */
function widen(value: unknown): [string, string, string] | undefined {
  if (Array.isArray(value)) {
    const items = value as string[];
    if (items.some((item) => typeof item !== "string" || canonicalValue(item) === undefined || /\s|\*/.test(item))) return undefined;
    if (items.every((item) => kindOf(item) === "email")) {
      const domains = new Set(items.map((item) => item.slice(item.lastIndexOf("@") + 1).toLowerCase()));
      const domain = domains.size === 1 ? `*@${[...domains][0]}` : undefined;
      return domain === undefined ? undefined : [domain, domain, domain];
    }
    const exact = items.join(" ");
    const head = items.slice(0, Math.min(2, items.length));
    return [exact, items.length > head.length ? [...head, "*"].concat(items.slice(head.length + 1).map(() => "*")).join(" ") : exact, [...head, "**"].join(" ")];
  }
  if (typeof value !== "string") return undefined;
  const canonical = canonicalValue(value);
  if (canonical === undefined || canonical.includes("*")) return undefined;
  const kind = kindOf(canonical);
  if (kind === "path") {
    const dir = canonical.slice(0, canonical.lastIndexOf("/")) || "";
    return [canonical, `${dir}/*`, `${dir}/**`];
  }
  if (kind === "email") {
    const domain = canonical.slice(canonical.lastIndexOf("@") + 1);
    return [canonical, `*@${domain}`, `*@${domain}`];
  }
  const url = new URL(canonical);
  const dir = url.pathname.slice(0, url.pathname.lastIndexOf("/"));
  return [canonical, `${url.origin}${dir}/*`, `${url.origin}/**`];
}
