/**
 * `instantiate` loads TypeScript plugin source the way the guest runs it, minus the WASM: esbuild
 * bundles it with its `clawhive:*` imports left as `require` calls, and each instance gets its own
 * host imports, as a real instance is bound to its own host. No global state is shared between
 * instances. The files plugin is AssemblyScript: `filesPlugin` instantiates its real component.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { FakeFs } from "./fake-host.js";
import type { Denial, FakeFsOptions, HostError, HostImports } from "./fake-host.js";
import { loadComponent } from "../as/component.js";

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

/**
 * A fresh instance of the files plugin over a fresh fake fs: its real component (AssemblyScript,
 * built as install builds it) through jco's glue, so every argument and result crosses the
 * canonical ABI byte for byte. The fake is seen through the host boundary the sandbox's worker
 * gives a guest (see `hostBoundary`), and a tool error comes out as its `tool-error` value.
 */
export async function filesPlugin(options: FakeFsOptions = {}): Promise<FilesPlugin> {
  const fs = new FakeFs(options);
  const loaded = await loadComponent(join(repoRoot(), "plugins/files"), hostBoundary(fs.imports()));
  const tools: ToolsExport = {
    describe: () => loaded.tools.describe() as ToolDescriptor[],
    call: (name, input) => {
      try {
        return loaded.tools.call(name, input);
      } catch (e) {
        // jco throws a returned `tool-error` as a ComponentError carrying it as `payload`.
        if (e !== null && typeof e === "object" && "payload" in e) throw (e as { payload: unknown }).payload;
        throw e;
      }
    },
  };
  return { tools, fs };
}

const HOST_ERROR_TAGS = new Set(["denied", "not-found", "invalid-input", "io"]);

function text(value: unknown): string {
  try {
    return String(value);
  } catch {
    return "unprintable";
  }
}

/**
 * What a host function's failure is once it reaches a guest: always a well-formed `host-error`.
 * In the runtime every host call is answered over the worker's channel as a value or a
 * host-error (runs/host-context.ts turns a proxy that throws into a refusal), and the worker
 * throws that variant for jco to lower; a fake that throws anything else is shown the same way.
 */
function asHostError(thrown: unknown): HostError {
  const payload = thrown !== null && typeof thrown === "object" && "payload" in thrown ? (thrown as { payload: unknown }).payload : undefined;
  const { tag, val } = (payload ?? {}) as { tag?: unknown; val?: unknown };
  if (typeof tag === "string" && HOST_ERROR_TAGS.has(tag)) {
    if (tag === "denied") {
      const d = (val ?? {}) as Record<string, unknown>;
      return { tag: "denied", val: { capability: text(d["capability"]), reason: text(d["reason"]), message: text(d["message"]) } } as HostError;
    }
    return { tag, val: text(val) } as HostError;
  }
  return { tag: "io", val: `host call failed: ${thrown instanceof Error ? thrown.message : text(thrown)}` } as HostError;
}

/** The fake's imports as the guest's glue reads them (keys without `@version`), behind the worker's host boundary. */
function hostBoundary(imports: HostImports): Record<string, unknown> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [key, functions] of Object.entries(imports)) {
    const wrapped: Record<string, unknown> = {};
    for (const [name, fn] of Object.entries(functions)) {
      wrapped[name] = (...args: never[]) => {
        try {
          return fn(...args);
        } catch (e) {
          // log.write returns nothing: the host drops a refused line rather than fail the guest.
          if (key.startsWith("clawhive:host/log")) return undefined;
          throw asHostError(e);
        }
      };
    }
    out[key.replace(/@[^/]*$/, "")] = wrapped;
  }
  return out;
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
