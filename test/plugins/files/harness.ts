/**
 * Loads plugin source the way the guest runs it, minus the WASM: esbuild bundles it with its
 * `clawhive:*` imports left as `require` calls, and each instance gets its own host imports,
 * as a real instance is bound to its own host. No global state is shared between instances.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { FakeFs } from "./fake-host.js";
import type { Denial, FakeFsOptions, HostImports } from "./fake-host.js";

export interface ToolDescriptor {
  name: string;
  description: string;
  inputSchema: string;
  capabilities: string[];
  risk: "safe" | "guarded" | "unsafe";
}

export type ToolError =
  | { tag: "denied"; val: Denial }
  | { tag: "invalid-input"; val: string }
  | { tag: "not-found"; val: string }
  | { tag: "failed"; val: string };

export interface ToolsExport {
  describe(): ToolDescriptor[];
  call(name: string, input: string): string;
}

type Instantiate = (imports: HostImports) => Record<string, unknown>;

/** The repository root: the nearest ancestor holding `plugins/files/plugin.json`. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "plugins/files/plugin.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("repo root: no ancestor holds plugins/files/plugin.json");
    dir = up;
  }
  return dir;
}

const loaded = new Map<string, Promise<Instantiate>>();

async function bundle(entry: string): Promise<Instantiate> {
  const result = await build({
    entryPoints: [join(repoRoot(), entry)],
    bundle: true,
    format: "cjs",
    platform: "neutral",
    target: "es2022",
    external: ["clawhive:*"],
    write: false,
    logLevel: "silent",
  });
  const code = result.outputFiles[0]?.text;
  if (code === undefined) throw new Error(`bundle ${entry}: esbuild wrote nothing`);
  const wrapped = [
    "export function instantiate(imports) {",
    "  const module = { exports: {} };",
    "  const require = (name) => {",
    "    if (!(name in imports)) throw new Error(`import ${name}: not provided`);",
    "    return imports[name];",
    "  };",
    "  (function (module, exports, require) {",
    code,
    "  })(module, module.exports, require);",
    "  return module.exports;",
    "}",
  ].join("\n");
  const dir = await mkdtemp(join(tmpdir(), "clawhive-plugin-test-"));
  try {
    const file = join(dir, "plugin.mjs");
    await writeFile(file, wrapped);
    const module = (await import(pathToFileURL(file).href)) as { instantiate: Instantiate };
    return module.instantiate;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A fresh instance of the module at `entry` (repo-relative), bound to `imports`. */
export async function instantiate(entry: string, imports: HostImports): Promise<Record<string, unknown>> {
  let pending = loaded.get(entry);
  if (pending === undefined) {
    pending = bundle(entry);
    loaded.set(entry, pending);
  }
  return (await pending)(imports);
}

export interface FilesPlugin {
  tools: ToolsExport;
  fs: FakeFs;
}

/** A fresh instance of the files plugin over a fresh fake fs. */
export async function filesPlugin(options: FakeFsOptions = {}): Promise<FilesPlugin> {
  const fs = new FakeFs(options);
  const exports = await instantiate("plugins/files/src/index.ts", fs.imports());
  return { tools: exports["tools"] as ToolsExport, fs };
}

const TAGS = new Set(["denied", "invalid-input", "not-found", "failed"]);

/** Asserts `thrown` is a well-formed `tool-error` value, exactly as the WIT lowering needs it. */
export function assertToolError(thrown: unknown): asserts thrown is ToolError {
  assert.ok(!(thrown instanceof Error), `an Error escaped the export: ${String(thrown)}`);
  assert.equal(typeof thrown, "object");
  assert.notEqual(thrown, null);
  const { tag, val } = thrown as { tag: unknown; val: unknown };
  assert.ok(typeof tag === "string" && TAGS.has(tag), `not a tool-error case: ${String(tag)}`);
  assert.deepEqual(Object.keys(thrown as object).sort(), ["tag", "val"]);
  if (tag === "denied") {
    assert.deepEqual(Object.keys(val as object).sort(), ["capability", "message", "reason"]);
    for (const field of Object.values(val as object)) assert.equal(typeof field, "string");
  } else {
    assert.equal(typeof val, "string");
  }
}

/** Calls a tool that must succeed; returns its parsed JSON result. */
export function callOk(tools: ToolsExport, name: string, input: unknown): Record<string, unknown> {
  let text: string;
  try {
    text = tools.call(name, JSON.stringify(input));
  } catch (e) {
    assert.fail(`${name} failed: ${JSON.stringify(e)}`);
  }
  assert.equal(typeof text, "string");
  return JSON.parse(text) as Record<string, unknown>;
}

/** Calls a tool that must fail; returns the `tool-error` it threw, checked for shape. */
export function callErr(tools: ToolsExport, name: string, input: unknown): ToolError {
  try {
    const result = tools.call(name, typeof input === "string" ? input : JSON.stringify(input));
    assert.fail(`${name} should have failed, returned ${result}`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    assertToolError(e);
    return e;
  }
}
