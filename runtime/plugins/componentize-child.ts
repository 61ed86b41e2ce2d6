/**
 * Child-process entry of plugin builds, inside a throwaway directory:
 * - `componentize <dir> <world>`: reads <dir>/plugin.js and <dir>/wit; writes <dir>/out/component.wasm.
 * - `transpile <dir>`: reads <dir>/plugin.wasm (a component); writes its glue and core modules to
 *   <dir>/out/, and jco's list of the glue's imports to <dir>/imports.json.
 *
 * It runs in its own process because the WASI shim the componentize-js splicer runs on keeps
 * process-global state (preopens, stdio); here the only preopen is the build directory, so the
 * build sees nothing else, and the runtime process never serves a plugin from that shim.
 * Transpiling (~1.3 s of CPU) runs here too, so it never stalls the runtime's event loop.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { _setPreopens } from "@bytecodealliance/preview2-shim/filesystem";

const [mode, dir, world, wasi] = process.argv.slice(2);
if (!dir || (mode === "componentize" && !world) || (mode !== "componentize" && mode !== "transpile")) {
  process.stderr.write("usage: componentize-child componentize <build dir> <world> | transpile <build dir>\n");
  process.exit(2);
}
// The shim's Node types are published under its browser entry; the Node build takes host paths.
(_setPreopens as unknown as (preopens: Record<string, string>) => void)({ [dir]: dir });
const out = join(dir, "out");
await mkdir(out, { recursive: true });

if (mode === "componentize") {
  const { componentize } = await import("@bytecodealliance/componentize-js");
  const { component } = await componentize({
    sourcePath: join(dir, "plugin.js"),
    witPath: join(dir, "wit"),
    worldName: world!,
    // Every capability arrives through clawhive:host, unless the plugin asks for WASI (served
    // per instance by clawhive, see runtime/sandbox/wasi/); a plugin never serves HTTP.
    disableFeatures: wasi === "wasi" ? ["fetch-event"] : ["stdio", "random", "clocks", "http", "fetch-event"],
  });
  await writeFile(join(out, "component.wasm"), component);
} else {
  // The transpiler alone (jco-transpile), not the jco CLI with its optimiser and componentizers.
  // noComponentErrorWrapping: false keeps the glue byte for byte what the jco CLI emits.
  const { transpileBytes } = await import("@bytecodealliance/jco-transpile");
  const { files, imports } = await transpileBytes(await readFile(join(dir, "plugin.wasm")), {
    name: "plugin",
    instantiation: "async",
    emitTypescriptDeclarations: false,
    noComponentErrorWrapping: false,
    nodejsCompat: false,
    wasiShim: false,
  });
  for (const [name, bytes] of Object.entries(files)) {
    await mkdir(dirname(join(out, name)), { recursive: true });
    await writeFile(join(out, name), bytes);
  }
  // jco's structured list of what the glue imports from the host (interface names, unversioned).
  await writeFile(join(dir, "imports.json"), JSON.stringify(imports));
}
