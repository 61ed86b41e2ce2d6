/**
 * A build child (build-child.ts runs a few and keeps them warm between jobs). Started with its
 * own folder; each job message `{ mode, dir, rest }` names a job folder inside it:
 * - `componentize` (rest: world, then `wasi` when the plugin asks for it): reads <dir>/plugin.js
 *   and <dir>/wit; writes <dir>/out/component.wasm.
 * - `assemblyscript` (rest: world, entry, the SDK's folder): compiles the AssemblyScript under
 *   <dir> (assemblyscript-build.ts); writes <dir>/out/component.wasm.
 * - `transpile`: reads <dir>/plugin.wasm (a component); writes its glue and core modules to
 *   <dir>/out/, and jco's list of the glue's imports to <dir>/imports.json.
 * Each job is answered `{ ok: true }` or `{ ok: false, error }`. When the channel closes, or a
 * signal to stop comes, the child leaves, and its folder goes with it (short of a SIGKILL: the
 * stale-work sweep takes those).
 *
 * It runs in its own process because the WASI shim the componentize-js splicer runs on keeps
 * process-global state (preopens, stdio); here the only preopen is the child's folder, which
 * holds nothing but the job at hand, and the runtime process never serves a plugin from that
 * shim. Transpiling (~1 s of CPU when cold) runs here too, so it never stalls the runtime's event
 * loop.
 */
import { rmSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative } from "node:path";
import { _setPreopens } from "@bytecodealliance/preview2-shim/filesystem";
import { mkdirWithin } from "./work-folders.js";

const root = process.argv[2];
if (!root || !process.send) {
  process.stderr.write("componentize-child: started by build-child.ts, with its folder and an IPC channel\n");
  process.exit(2);
}
// The shim's Node types are published under its browser entry; the Node build takes host paths.
// The splicer's libc reads its preopens once, so the child's folder is the one for every job.
(_setPreopens as unknown as (preopens: Record<string, string>) => void)({ [root]: root });

interface Job {
  mode: string;
  dir: string;
  rest: string[];
}

// A parent gone meanwhile hears nothing: the channel is closed, and this child is leaving.
const answer = (message: { ok: boolean; error?: string }) => {
  if (process.connected) process.send!(message);
};

process.on("message", (job: Job) => {
  run(job).then(
    () => answer({ ok: true }),
    (error: unknown) => answer({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
// However the child leaves (its parent gone, retired, or a failure), its folder goes with it.
// A write of the job still under way in the thread pool can add an entry between a folder's
// listing and its removal (ENOTEMPTY; rmSync's own retries list it no more): removed again.
process.on("exit", () => {
  for (let attempt = 1; ; attempt++) {
    try {
      rmSync(root, { recursive: true, force: true });
      return;
    } catch (error) {
      if (attempt === 5) throw error;
    }
  }
});
process.on("disconnect", () => process.exit(0));
// A signal to stop, sent to this child itself (it has a process group of its own), leaves the same way.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => process.exit(1));
// A parent killed while this child was starting closed the channel before it was listened to.
if (!process.connected) process.exit(0);

async function run({ mode, dir, rest }: Job): Promise<void> {
  const inside = relative(root!, dir);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) throw new Error(`job folder outside the child's folder: ${dir}`);
  process.chdir(dir);
  const out = join(dir, "out");
  await mkdirWithin(dir, "out");
  if (mode === "componentize") {
    const [world, wasi] = rest;
    if (!world) throw new Error("componentize: no world named");
    const { componentize } = await import("@bytecodealliance/componentize-js");
    const { component } = await componentize({
      sourcePath: join(dir, "plugin.js"),
      witPath: join(dir, "wit"),
      worldName: world,
      // Every capability arrives through clawhive:host, unless the plugin asks for WASI (served
      // per instance by clawhive, see runtime/sandbox/wasi/); a plugin never serves HTTP.
      disableFeatures: wasi === "wasi" ? ["fetch-event"] : ["stdio", "random", "clocks", "http", "fetch-event"],
    });
    await writeFile(join(out, "component.wasm"), component);
  } else if (mode === "assemblyscript") {
    const [world, entry, sdk] = rest;
    if (!world || !entry || !sdk) throw new Error("assemblyscript: give the world, the entry and the SDK's folder");
    const { buildAssemblyScript } = await import("./assemblyscript-build.js");
    await writeFile(join(out, "component.wasm"), await buildAssemblyScript({ dir, entry, sdk, world }));
  } else if (mode === "transpile") {
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
      await mkdirWithin(out, dirname(name));
      await writeFile(join(out, name), bytes);
    }
    // jco's structured list of what the glue imports from the host (interface names, unversioned).
    await writeFile(join(dir, "imports.json"), JSON.stringify(imports));
  } else {
    throw new Error(`unknown build job: ${mode}`);
  }
}
