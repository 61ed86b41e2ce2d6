/** The build child (componentize-child.ts) and what its transpiled glue is patched with. */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PluginError } from "../errors.js";

// Named from dist/runtime/, not from this file: the command line's bundle (dist/runtime/cli-bundle/)
// holds this code too, one folder over.
const CHILD = join(dirname(fileURLToPath(import.meta.url)), "..", "plugins", "componentize-child.js");

/**
 * Deterministic edits to the generated glue, applied before hashing:
 * - jco's glue reads `process.env.JCO_DEBUG` on every call (about a quarter of a call's CPU);
 *   the sandbox never debugs through the environment.
 * - At each instantiation the glue tries `WebAssembly.promising` (JSPI) on several exports and
 *   falls back in a catch. Node 20 has no JSPI, so each try throws a TypeError whose stack
 *   capture cost ~0.4 ms: about a quarter of an instantiation. Without JSPI the stand-in throws
 *   a primitive (no stack), taking the same fallback.
 */
export function patchGlue(glue: string): string {
  const debug = "if (!globalThis?.process?.env?.JCO_DEBUG) { return; }";
  const promising =
    "const __clawhivePromising = typeof WebAssembly.promising === 'function' ? WebAssembly.promising : () => { throw 0; };\n";
  return promising + glue.split(debug).join("return;").split("WebAssembly.promising(").join("__clawhivePromising(");
}

/** Runs the build child (`componentize` or `transpile`, see componentize-child.ts) in `args[1]`. */
export function runChild(args: [mode: string, work: string, ...rest: string[]]): Promise<void> {
  const work = args[1];
  return new Promise((resolvePromise, reject) => {
    // The child gets a minimal environment: the build needs nothing from ours.
    const child = spawn(process.execPath, [CHILD, ...args], {
      cwd: work,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolvePromise();
      else reject(new PluginError("build_failed", `${args[0]} failed (exit ${code}):\n${output.split(work).join("<build>").slice(-4000)}`));
    });
  });
}
