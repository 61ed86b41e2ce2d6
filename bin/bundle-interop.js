// An esbuild plugin for the command line's bundle: a dynamic `import()` of a CommonJS module gets
// the module's named exports, as it does unbundled. With code splitting, esbuild turns such an
// import into a chunk of its own whose only export is `default` (the CommonJS `module.exports`):
// ES modules cannot have run-time export names, so `(await import("cjs")).name` is undefined in
// the bundle and a function in the compiled files (esbuild issues #3245 and #4377). The
// OpenTelemetry exporter, undici and the resource detectors' own `import()`s were all lost so.
//
// Each such import is pointed at a small ES module instead, naming each export Node itself finds
// in the CommonJS module (by importing it, here at build time, as the unbundled code would at run
// time) and reading it from the bundled `require()`, `default` being `module.exports` as in Node.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const NAMESPACE = "cjs-dynamic-import";

export function commonJsDynamicImports() {
  return {
    name: "commonjs-dynamic-imports",
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== "dynamic-import" || args.pluginData?.resolvingCommonJs === true) return undefined;
        const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { resolvingCommonJs: true } });
        if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== "file" || !isCommonJs(resolved.path)) return resolved;
        return { path: resolved.path, namespace: NAMESPACE };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, async (args) => ({
        contents: await namedExportsModule(args.path),
        resolveDir: dirname(args.path),
        loader: "js",
      }));
    },
  };
}

/** `.cjs`, or a `.js` whose nearest package.json does not say `"type": "module"`. */
export function isCommonJs(path) {
  if (path.endsWith(".cjs")) return true;
  if (!path.endsWith(".js")) return false;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    let text;
    try {
      text = readFileSync(join(dir, "package.json"), "utf8");
    } catch {
      if (dirname(dir) === dir) return true;
      continue;
    }
    return JSON.parse(text).type !== "module";
  }
}

/** The ES module standing for the CommonJS file at `path`: its names, read once it has run. */
async function namedExportsModule(path) {
  const names = Object.keys(await import(pathToFileURL(path).href)).filter((name) => name !== "default");
  const lines = [`const cjs = require(${JSON.stringify(path)});`, "export default cjs;"];
  names.forEach((name, i) => lines.push(`const name${i} = cjs[${JSON.stringify(name)}];`, `export { name${i} as ${JSON.stringify(name)} };`));
  return `${lines.join("\n")}\n`;
}
