// The command line as one bundle (dist/runtime/cli-bundle/): each `clawhive` process otherwise
// resolves, reads and links ~1,500 ES modules of the runtime and its packages before it does
// anything, about half of a short command's CPU. One file per command (split at the commands'
// dynamic imports) and shared chunks load in a fraction of that. Packages that find files next to
// their own code at run time (native addons, WebAssembly, worker scripts) stay outside and
// resolve from node_modules as before. bin/clawhive.js falls back to dist/runtime/cli/ when the
// bundle is missing or older than the last compile.
import { join } from "node:path";
import { rmSync, writeFileSync } from "node:fs";
import { commonJsDynamicImports } from "./bundle-interop.js";

/** Packages loaded from node_modules at run time, never copied into the bundle. */
const EXTERNAL = [
  "libsql", // native addon
  "@libsql/*",
  "@bytecodealliance/*", // WebAssembly next to their code
  "@extism/*",
  "esbuild", // its own binary
  "typescript",
  "componentize-qjs",
  // pino itself is bundled (loading it from node_modules, 29 files through require(), cost a
  // command ~48 ms of CPU at load ~25): the runtime writes to destinations, never through pino.transport(),
  // the one part that runs worker scripts by path. pino-pretty is loaded by createRequire only
  // where a line is pretty, so it stays outside anyway.
  "pino-pretty",
];

/** What the bundle was built from, beside it: test/house/cli-lazy-chunks.test.ts reads it. */
export const BUNDLE_META = join("dist", "runtime", "cli-bundle.meta.json");

export async function bundleCli(root) {
  const { build } = await import("esbuild");
  const outdir = join(root, "dist", "runtime", "cli-bundle");
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: [join(root, "dist", "runtime", "cli", "main.js")],
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: EXTERNAL,
    logLevel: "warning",
    absWorkingDir: root,
    metafile: true,
    plugins: [commonJsDynamicImports()],
    // Bundled CommonJS packages call require(): give the ES module one.
    banner: { js: "import { createRequire as __clawhiveRequire } from 'node:module'; const require = __clawhiveRequire(import.meta.url);" },
  });
  writeFileSync(join(root, BUNDLE_META), JSON.stringify(result.metafile));
}
