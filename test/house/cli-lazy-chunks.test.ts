/**
 * Every module the command line's bundle loads lazily (a dynamic `import()`: a command, the
 * OpenTelemetry SDK and exporter, undici, the Markdown renderer, the store's server client, …)
 * has, in the bundle, every export Node finds in the module itself. With code splitting esbuild
 * gave a CommonJS module imported so only `default`, and `clawhive serve` with tracing on died
 * at start (`OTLPTraceExporter is not a constructor`) while the unbundled tests passed.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";

interface Metafile {
  outputs: Record<string, { entryPoint?: string }>;
}

const META = join(PROJECT_ROOT, "dist", "runtime", "cli-bundle.meta.json");
const ENTRY = join("dist", "runtime", "cli", "main.js");

/** The bundle's lazily loaded chunks, each with the file it stands for. */
async function lazyChunks(): Promise<Array<{ chunk: string; source: string }>> {
  const meta = JSON.parse(await readFile(META, "utf8")) as Metafile;
  return Object.entries(meta.outputs)
    .filter(([, output]) => output.entryPoint !== undefined && output.entryPoint !== ENTRY)
    .map(([chunk, output]) => {
      // A plugin's module is named `namespace:path`.
      const source = output.entryPoint!.replace(/^[a-z-]+:(?=\/)/, "");
      return { chunk: join(PROJECT_ROOT, chunk), source: isAbsolute(source) ? source : join(PROJECT_ROOT, source) };
    });
}

/** Names Node finds in `path` that the bundle's `chunk` lacks. */
async function missingExports(chunk: string, path: string): Promise<string[]> {
  const own = Object.keys((await import(pathToFileURL(path).href)) as object);
  const bundled = new Set(Object.keys((await import(pathToFileURL(chunk).href)) as object));
  return own.filter((name) => !bundled.has(name));
}

test("every lazily loaded chunk of the bundle exports what its module exports unbundled", async () => {
  const chunks = await lazyChunks();
  const sources = chunks.map((c) => c.source).join("\n");
  // The check sees what it checks: the lazily loaded CommonJS packages are among them.
  for (const expected of ["exporter-trace-otlp-http", "@opentelemetry/resources", "@opentelemetry/sdk-trace-base", "undici", "marked-terminal", "dist/runtime/cli/serve.js"]) {
    assert.ok(sources.includes(expected), `no lazily loaded chunk for ${expected}:\n${sources}`);
  }
  const lacking: string[] = [];
  for (const { chunk, source } of chunks) {
    const missing = await missingExports(chunk, source);
    if (missing.length > 0) lacking.push(`${source}: ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", …" : ""}`);
  }
  assert.deepEqual(lacking, [], "the bundle loses these exports: see bin/bundle-interop.js");
});

test("the bundle's plugin is what keeps them: a CommonJS module imported lazily has its names with it, default only without it", async () => {
  const { build } = await import("esbuild");
  const { commonJsDynamicImports } = (await import(pathToFileURL(join(PROJECT_ROOT, "bin", "bundle-interop.js")).href)) as { commonJsDynamicImports: () => import("esbuild").Plugin };
  const dir = await mkdtemp(join(tmpdir(), "clawhive-interop-"));
  try {
    await writeFile(join(dir, "lib.cjs"), `"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\nexports.Exporter = class Exporter {};\nexports.delete = () => "reserved words are names too";\n`);
    await writeFile(join(dir, "entry.mjs"), `export const load = () => import("./lib.cjs");\n`);
    const bundle = async (name: string, plugins: import("esbuild").Plugin[]) => {
      await build({
        entryPoints: [join(dir, "entry.mjs")],
        outdir: join(dir, name),
        bundle: true,
        splitting: true,
        format: "esm",
        platform: "node",
        logLevel: "silent",
        plugins,
        banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
      });
      const { load } = (await import(pathToFileURL(join(dir, name, "entry.js")).href)) as { load: () => Promise<Record<string, unknown>> };
      return load();
    };
    const without = await bundle("plain", []);
    assert.equal(without.Exporter, undefined, "control: esbuild alone loses the names (if this fails, esbuild fixed it and the plugin may go)");
    assert.equal(typeof (without.default as Record<string, unknown>).Exporter, "function");
    const withPlugin = await bundle("interop", [commonJsDynamicImports()]);
    assert.equal(typeof withPlugin.Exporter, "function");
    assert.equal((withPlugin.delete as () => string)(), "reserved words are names too");
    assert.equal((withPlugin.default as Record<string, unknown>).Exporter, withPlugin.Exporter, "default is module.exports, as in Node");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
