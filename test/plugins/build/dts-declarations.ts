/**
 * The declarations of `declare module "…" { … }` blocks in a .d.ts, each in one canonical
 * spelling, so jco's generated guest types and the SDK's hand-written host.d.ts can be compared:
 * comments, whitespace, quote style, member separators and order, and `Array<T>` against `T[]`
 * do not count; names, optionality and types do. Covers what those files use (functions,
 * interfaces, type aliases), not TypeScript at large.
 */

/** `module name` → `function (…) => …` | `interface {…}` | `type …`. */
export type Declarations = Map<string, string>;

export function declarationsOf(text: string): Declarations {
  const source = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/[^\n]*/g, "");
  const declarations: Declarations = new Map();
  const header = /declare module ["']([^"']+)["']\s*\{/g;
  for (let match = header.exec(source); match !== null; match = header.exec(source)) {
    const start = match.index + match[0].length;
    const end = closingBrace(source, start - 1);
    for (const statement of statements(source.slice(start, end))) {
      const declared = declaration(statement);
      if (declared) declarations.set(`${match[1]} ${declared.name}`, declared.shape);
    }
    header.lastIndex = end;
  }
  return declarations;
}

/** Differences, sorted: what the WIT has and host.d.ts lacks or spells otherwise, and the reverse. */
export function describeDifferences(fromWit: Declarations, byHand: Declarations): string[] {
  const out: string[] = [];
  for (const [key, shape] of fromWit) {
    const hand = byHand.get(key);
    if (hand === undefined) out.push(`${key}: missing from host.d.ts (WIT has ${shape})`);
    else if (hand !== shape) out.push(`${key}: WIT has ${shape}, host.d.ts has ${hand}`);
  }
  for (const key of byHand.keys()) if (!fromWit.has(key)) out.push(`${key}: host.d.ts declares it, the WIT does not`);
  return out.sort();
}

function declaration(statement: string): { name: string; shape: string } | undefined {
  const fn = /^export\s+function\s+([\w$]+)\s*\(([\s\S]*)\)\s*:\s*([\s\S]+)$/.exec(statement);
  if (fn) {
    const params = split(fn[2]!, [","]).map(member).join(", ");
    return { name: fn[1]!, shape: `function (${params}) => ${typeText(fn[3]!)}` };
  }
  const iface = /^export\s+interface\s+([\w$]+)\s*\{([\s\S]*)\}$/.exec(statement);
  if (iface) return { name: iface[1]!, shape: `interface {${split(iface[2]!, [",", ";"]).map(member).sort().join("; ")}}` };
  const alias = /^export\s+type\s+([\w$]+)\s*=\s*([\s\S]+)$/.exec(statement);
  if (alias) return { name: alias[1]!, shape: `type ${typeText(alias[2]!)}` };
  return undefined;
}

/** `name?: type` of a parameter or field, canonical. */
function member(text: string): string {
  const colon = text.indexOf(":");
  if (colon < 0) return typeText(text);
  return `${text.slice(0, colon).trim()}: ${typeText(text.slice(colon + 1))}`;
}

function typeText(text: string): string {
  let t = text.replace(/\s+/g, "").replace(/'/g, '"').replace(/;$/, "");
  // Object types in unions (`{ tag: "a"; val: T }`): one separator, none before the brace.
  t = t.replace(/\{([^{}]*)\}/g, (_m, body: string) => `{${split(body, [",", ";"]).join(";")}}`);
  // Array<T> → T[] (innermost first), parenthesised when T is a union.
  for (let previous = ""; previous !== t; ) {
    previous = t;
    t = t.replace(/Array<([^<>]*)>/, (_m, inner: string) => (split(inner, ["|"]).length > 1 ? `(${inner})[]` : `${inner}[]`));
  }
  return t;
}

/** Top-level statements of a module body: ended by `;`, or by the brace that closes an interface. */
function statements(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    current += c;
    if ("{[(<".includes(c)) depth++;
    else if ("}])".includes(c) || (c === ">" && body[i - 1] !== "=")) depth--;
    if (depth !== 0) continue;
    if (c === ";" || (c === "}" && /^\s*export\s+interface\b/.test(current))) {
      const statement = current.trim().replace(/;$/, "").trim();
      if (statement !== "") out.push(statement);
      current = "";
    }
  }
  if (current.trim() !== "") out.push(current.trim());
  return out;
}

/** `text` split at top-level `separators`, empty parts dropped. */
function split(text: string, separators: readonly string[]): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if ("{[(<".includes(c)) depth++;
    else if ("}])".includes(c) || (c === ">" && text[i - 1] !== "=")) depth--;
    if (depth === 0 && separators.includes(c)) {
      if (current.trim() !== "") parts.push(current.trim());
      current = "";
      continue;
    }
    current += c;
  }
  if (current.trim() !== "") parts.push(current.trim());
  return parts;
}

/** Index of the brace closing the one at `open`. */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return i;
  }
  return text.length;
}
