/**
 * The project's own import graph, read from its sources: every static `import`/`export … from`
 * and literal `import("…")` of a relative module, resolved to the `.ts` file it names. Type-only
 * imports count: a cycle of types is still two rooms that cannot be understood apart.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export type ImportGraph = Map<string, Set<string>>;

const SPECIFIER = /(?:^|[\s;}])(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;

/** Every `.ts` file below `dirs` (relative to `root`), with the project files it imports. */
export function importGraph(root: string, dirs: readonly string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const dir of dirs) for (const file of tsFiles(join(root, dir))) graph.set(relative(root, file), importsOf(root, file));
  return graph;
}

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...tsFiles(path));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

function importsOf(root: string, file: string): Set<string> {
  const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const found = new Set<string>();
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (!spec?.startsWith(".")) continue;
    const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
    const candidates = [target, `${target}.ts`, join(target, "index.ts")];
    const hit = candidates.find((c) => c.endsWith(".ts") && existsSync(c));
    if (hit) found.add(relative(root, hit));
  }
  return found;
}

/** The strongly connected components with more than one file (Tarjan), each sorted. */
export function cycles(graph: ImportGraph): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

export interface DirectionRule {
  /** Files under this folder… */
  from: string;
  /** …may not import files under these. */
  notTo: readonly string[];
  why: string;
}

/** Every import that breaks a rule, as `from -> to`. */
export function forbidden(graph: ImportGraph, rules: readonly DirectionRule[]): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    for (const rule of rules) {
      if (!from.startsWith(`${rule.from}/`)) continue;
      for (const to of targets) if (rule.notTo.some((t) => to.startsWith(`${t}/`))) out.push(`${from} -> ${to}`);
    }
  }
  return out.sort();
}

/** DESIGN.md "Rooms": data flows API/CLI/MCP → runs → (llm, policy → sandbox → host-proxies) → audit/store. */
export const ROOM_RULES: readonly DirectionRule[] = [
  { from: "host-proxies", notTo: ["runtime/runs", "runtime/agents", "runtime/policy", "runtime/api", "runtime/cli", "runtime/mcp"], why: "a proxy receives what it needs through its options" },
  { from: "runtime/policy", notTo: ["runtime/runs", "runtime/api", "runtime/cli", "runtime/mcp"], why: "runs call policy, never the reverse" },
  { from: "runtime/sandbox", notTo: ["runtime/runs", "runtime/policy", "runtime/api", "runtime/cli", "runtime/mcp"], why: "the sandbox runs guests; grants stay with the runs" },
  { from: "runtime/audit", notTo: ["runtime/runs", "runtime/policy", "runtime/api", "runtime/cli", "runtime/mcp", "runtime/sandbox"], why: "audit and store are the bottom of the flow" },
  { from: "runtime/store", notTo: ["runtime/runs", "runtime/policy", "runtime/api", "runtime/cli", "runtime/mcp", "runtime/sandbox", "runtime/audit"], why: "the store is the bottom of the flow" },
  { from: "runtime/runs", notTo: ["runtime/api", "runtime/cli", "runtime/mcp"], why: "front doors call runs, never the reverse" },
  { from: "runtime/llm", notTo: ["runtime/runs", "runtime/api", "runtime/cli", "runtime/mcp"], why: "the loop in runs drives the providers" },
  { from: "runtime/mcp", notTo: ["runtime/api", "runtime/cli"], why: "MCP is a front door beside the API and the CLI" },
  { from: "runtime/api", notTo: ["runtime/cli"], why: "the CLI is a client of the API, not its part" },
];
