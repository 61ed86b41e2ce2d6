/**
 * package.json says what the shipped code needs: every package that runtime/, host-proxies/,
 * the first-party plugins and bin/ import by name is in `dependencies` (an install with
 * `--omit=dev` has it), and every dependency is imported by name somewhere (a package nothing
 * loads is weight in every install). `@opentelemetry/resources` was imported undeclared, resolved
 * only because the exporter happened to bring it; `libmime` was declared and loaded by tests alone.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";
import { test } from "node:test";
import { SDK_ALIASES } from "../../runtime/plugins/bundle.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";

const ROOTS = ["runtime", "host-proxies", "plugins", "bin"];
const SKIP_DIRS = new Set(["node_modules", "dist", "fixtures"]);
/** Names a build resolves itself, never from node_modules. */
const NOT_PACKAGES = /^(node:|clawhive:|wasi:)/;

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!SKIP_DIRS.has(name)) out.push(...sourceFiles(path));
    } else if (/\.(ts|js|mjs)$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** The package a bare specifier names (`@scope/name`, `name`), or undefined for a relative or built-in one. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("/") || NOT_PACKAGES.test(specifier)) return undefined;
  if (Object.hasOwn(SDK_ALIASES, specifier) || builtinModules.includes(specifier.split("/")[0]!)) return undefined;
  return specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0];
}

/**
 * The source with comments and template literals blanked out, quoted strings kept: what is left
 * is code, so an import written in a comment, a doc example or a template (a scaffold's file) is
 * not read as one, and a glob such as "src/**\/*.ts" in a string does not open a comment.
 */
function codeOf(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? text.length : end + 1;
      out += " ";
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      // A quoted string ends at its line; a template literal may run over many.
      while (j < text.length && text[j] !== c && (c === "`" || text[j] !== "\n")) j += text[j] === "\\" ? 2 : 1;
      out += c === "`" ? '""' : text.slice(i, j + 1);
      i = j;
    } else out += c;
  }
  return out;
}

const SPECIFIERS = [
  /(?:^|[\s;}])(?:import|export)\s[^'"`;]*?\bfrom\s*["']([^"']+)["']/gm,
  /(?:^|[\s;}])import\s*["']([^"']+)["']/gm,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  /\brequire\(\s*["']([^"']+)["']\s*\)/g,
  /\bcreateRequire\([^)]*\)\(\s*["']([^"']+)["']\s*\)/g,
];

/** Every specifier a source imports: static imports and exports, `import()`, `require()` and `createRequire(…)("…")`. */
export function specifiersOf(text: string): string[] {
  const code = codeOf(text);
  return SPECIFIERS.flatMap((pattern) => [...code.matchAll(pattern)].map((m) => m[1]!));
}

/** Package → the files that import it. */
function importedPackages(files: Array<{ name: string; text: string }>): Map<string, string[]> {
  const used = new Map<string, string[]>();
  for (const { name, text } of files) {
    for (const specifier of specifiersOf(text)) {
      const pkg = packageOf(specifier);
      if (pkg !== undefined) used.set(pkg, [...(used.get(pkg) ?? []), name]);
    }
  }
  return used;
}

const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const files = ROOTS.flatMap((root) => sourceFiles(join(PROJECT_ROOT, root))).map((path) => ({ name: relative(PROJECT_ROOT, path), text: readFileSync(path, "utf8") }));
const used = importedPackages(files);

test("every package the shipped code imports by name is a dependency, not a dev dependency", () => {
  assert.ok(files.length > 400 && used.has("hono") && used.has("pino-pretty"), `only ${files.length} files, ${used.size} packages read`);
  const undeclared = [...used].filter(([pkg]) => !Object.hasOwn(manifest.dependencies, pkg)).map(([pkg, by]) => `${pkg} (${by.slice(0, 3).join(", ")})${Object.hasOwn(manifest.devDependencies, pkg) ? ": only a dev dependency" : ""}`);
  assert.deepEqual(undeclared, [], "add these to dependencies in package.json");
});

test("every dependency is imported by name by the shipped code", () => {
  const unused = Object.keys(manifest.dependencies).filter((pkg) => !used.has(pkg));
  assert.deepEqual(unused, [], "nothing shipped loads these: drop them, or move them to devDependencies if only tests use them");
});

test("the reading sees what it reads: each form of import is found, relative, built-in and host imports are not packages", () => {
  const text = [
    `import a from "left-pad";`,
    `import type {\n  B,\n} from "@scope/types/sub";`,
    `export { c } from "re-export";`,
    `import "side-effect";`,
    `const d = await import("lazy-one");`,
    `const e = createRequire(import.meta.url)("required-one");`,
    `const glob = "src/**/*.ts"; import { after } from "after-a-glob";`,
    `import { f } from "./local.js";`,
    `import { g } from "node:fs";`,
    `import { h } from "fs/promises";`,
    `import { i } from "clawhive:host/fs@0.1.0";`,
    `import { j } from "@clawhive/plugin-sdk";`,
    "const k = `a template\nof lines: import x from \"in-a-template\"`;",
    `// import y from "in-a-comment";`,
    `/** import z from "in-a-doc"; */`,
  ].join("\n");
  assert.deepEqual([...importedPackages([{ name: "made-up.ts", text }]).keys()].sort(), ["@scope/types", "after-a-glob", "lazy-one", "left-pad", "re-export", "required-one", "side-effect"]);
});
