/**
 * Child-process entry of a plugin build: componentize and transpile one plugin inside a
 * throwaway directory.
 *
 * It runs in its own process because the WASI shim the componentize-js splicer runs on keeps
 * process-global state (preopens, stdio); here the only preopen is the build directory, so the
 * build sees nothing else, and the runtime process never serves a plugin from that shim.
 *
 * argv: <build dir> <world name>. Reads <dir>/plugin.js and <dir>/wit; writes <dir>/out/*.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { _setPreopens } from "@bytecodealliance/preview2-shim/filesystem";

const [dir, world] = process.argv.slice(2);
if (!dir || !world) {
  process.stderr.write("usage: componentize-child <build dir> <world>\n");
  process.exit(2);
}
// The shim's Node types are published under its browser entry; the Node build takes host paths.
(_setPreopens as unknown as (preopens: Record<string, string>) => void)({ [dir]: dir });

const { componentize } = await import("@bytecodealliance/componentize-js");
const { transpile } = await import("@bytecodealliance/jco");

const { component } = await componentize({
  sourcePath: join(dir, "plugin.js"),
  witPath: join(dir, "wit"),
  worldName: world,
  // Every capability arrives through clawhive:host; the engine gets no WASI features.
  disableFeatures: ["stdio", "random", "clocks", "http", "fetch-event"],
});
const out = join(dir, "out");
await mkdir(out, { recursive: true });
await writeFile(join(out, "component.wasm"), component);
const { files } = await transpile(component, {
  name: "plugin",
  instantiation: "async",
  noTypescript: true,
  nodejsCompat: false,
  wasiShim: false,
});
for (const [name, bytes] of Object.entries(files)) {
  await mkdir(dirname(join(out, name)), { recursive: true });
  await writeFile(join(out, name), bytes);
}
