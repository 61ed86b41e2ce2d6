import { realpath } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import type { Message } from "esbuild";
import { InvalidInputError, PluginError } from "../errors.js";
import { confineToFolder, isWithin, pluginRoot } from "./confine.js";
import { PROJECT_ROOT } from "./locations.js";
import { nodeModulesDirs } from "./package-dir.js";

const SDK_DIR = join(PROJECT_ROOT, "plugins", "sdk");

/** The guest SDK, importable by any plugin folder (also one outside this project). */
export const SDK_ALIASES: Readonly<Record<string, string>> = {
  "@clawhive/plugin-sdk": join(SDK_DIR, "index.ts"),
  "@clawhive/plugin-sdk/fs": join(SDK_DIR, "fs.ts"),
};

/**
 * Bundles the plugin's source into one ES module. The bundle step sees only the plugin's own
 * folder (its node_modules included) and the SDK: see confine.ts. First-party plugins (this
 * project's plugins/, test/plugins/, bench/plugins/) also take packages from the node_modules
 * the project resolves its own from (its own, and the one npm hoisted them into when the project
 * is installed as a dependency), as the project's package.json declares their dependencies.
 */
export async function bundlePlugin(pluginDir: string, source: string): Promise<string> {
  return (await bundleWithInputs(pluginDir, source)).text;
}

/** The bundle and the real paths of every file it read (what a cached build is keyed on, see bundle-inputs.ts). */
export async function bundleWithInputs(pluginDir: string, source: string): Promise<{ text: string; inputs: string[] }> {
  const root = await pluginRoot(pluginDir);
  const entry = resolve(root, source);
  if (!isWithin(root, entry)) throw new InvalidInputError(`${join(pluginDir, "plugin.json")}: source: ${source} is outside the plugin folder`, { field: "source" });
  const firstParty = await isFirstParty(root);
  // esbuild is loaded when a build needs it, not with every runtime (~15 MB).
  const esbuild = await import("esbuild");
  inFlight++;
  try {
    const result = await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: "esm",
      platform: "neutral",
      // Plugins may use npm packages written for any platform; take their ESM or CJS entry.
      mainFields: ["module", "main"],
      // A guest has no process: a package reading process.env sees an empty environment (as
      // DESIGN promises plugins), decided at build time rather than failing at run time.
      define: { "process.env": "{}", "process.env.NODE_ENV": '"production"' },
      target: "es2022",
      // Fixed, so no tsconfig.json (the plugin's, or one in a folder above it) steers the output:
      // the options of plugins/tsconfig.json that esbuild reads, except `strict`, whose
      // alwaysStrict would add "use strict" to CommonJS packages and change their bundle.
      tsconfigRaw: { compilerOptions: { target: "ES2022", verbatimModuleSyntax: true } },
      external: ["clawhive:*", "wasi:*"],
      alias: { ...SDK_ALIASES },
      plugins: [
        confineToFolder(root, {
          aliases: SDK_ALIASES,
          shared: [SDK_DIR],
          packageRoots: firstParty ? nodeModulesDirs() : [],
        }),
      ],
      // The bundle names each module by its path from here (`// plugins/shell/src/index.ts`):
      // fixed, so the bundle, and so the component's sha256, does not depend on the caller's cwd.
      absWorkingDir: PROJECT_ROOT,
      logLevel: "silent",
      metafile: true,
    });
    const file = result.outputFiles[0];
    if (!file) throw new Error("no output");
    // `<define:…>` entries are esbuild's own virtual modules, not files.
    const inputs = Object.keys(result.metafile.inputs).filter((path) => !path.startsWith("<")).map((path) => resolve(PROJECT_ROOT, path));
    return { text: file.text, inputs };
  } catch (cause) {
    const errors = (cause as { errors?: Message[] }).errors;
    const detail = errors?.length ? errors.map((e) => `\n  ${formatMessage(e, root)}`).join("") : ` ${(cause as Error).message}`;
    throw new PluginError("build_failed", `bundling ${join(pluginDir, source)} failed:${detail}`, { cause });
  } finally {
    // esbuild keeps a service process for later builds; a runtime builds a few plugins at
    // start and then none, so the process ends with the last build in flight.
    if (--inFlight === 0) await esbuild.stop();
  }
}

let inFlight = 0;

/** Whether the (real) plugin folder is one of this project's own plugins. */
async function isFirstParty(root: string): Promise<boolean> {
  for (const dir of ["plugins", "test/plugins", "bench/plugins"]) {
    const real = await realpath(join(PROJECT_ROOT, dir)).catch(() => undefined);
    if (real !== undefined && isWithin(real, root)) return true;
  }
  return false;
}

/** `src/index.ts:3:20: import "../x.ts" ...`, with paths relative to the plugin folder. */
function formatMessage(message: Message, root: string): string {
  const at = message.location;
  if (!at) return message.text;
  const path = resolve(PROJECT_ROOT, at.file);
  return `${isWithin(root, path) ? relative(root, path) : path}:${at.line}:${at.column}: ${message.text}`;
}
