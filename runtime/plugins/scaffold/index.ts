/** `clawhive plugin new`: a new plugin folder that builds, installs and runs as it is. */
import { mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { ConflictError, InvalidInputError } from "../../errors.js";
import { PROJECT_ROOT } from "../locations.js";
import { scaffoldFiles } from "./templates.js";
import { typedScaffoldFiles } from "./typed-templates.js";

export interface ScaffoldOptions {
  /** The folder the plugin's folder is created in (default: the current folder). */
  parentDir?: string;
  publisher: string;
  /** A component exporting typed WIT functions instead of the SDK's describe/call tools. */
  typed?: boolean;
}

export interface Scaffold {
  /** The new plugin's folder. */
  dir: string;
  /** The files written, relative to `dir`. */
  files: string[];
}

/** A manifest name (`runtime/plugins/manifest.ts`), which is also the plugin's WIT world name. */
const NAME = /^[a-z][a-z0-9-]{0,62}$/;
/** WIT identifiers: words joined by single '-'. */
const WIT_IDENTIFIER = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
/** WIT keywords, refused by the WIT parser as world or package names (as of wit-parser 0.2xx). */
const WIT_KEYWORDS = new Set(
  ("use type func u8 u16 u32 u64 s8 s16 s32 s64 f32 f64 float32 float64 char resource own borrow record flags variant enum bool " +
    "string option result future stream error-context list map as from static interface tuple import export world package " +
    "constructor include with async").split(" "),
);

/** Why `name` cannot name a new plugin, or `undefined` if it can. */
export function pluginNameProblem(name: string): string | undefined {
  if (!NAME.test(name)) return "expected a lowercase name: a letter, then letters, digits and '-' (at most 63), e.g. hello or pdf-tools";
  if (!WIT_IDENTIFIER.test(name)) return "'-' must join two words (no '--', no '-' at the end): the name is also the plugin's WIT world";
  if (WIT_KEYWORDS.has(name)) return "a WIT keyword; the name is also the plugin's WIT world, choose another (e.g. my-" + name + ")";
  return undefined;
}

/**
 * Writes a new plugin folder `<parentDir>/<name>`: manifest, WIT world, source, host helpers,
 * tsconfig, a test and a README. Refuses a name that is not valid and a folder that exists
 * with anything in it; never overwrites a file.
 */
export async function scaffoldPlugin(name: string, options: ScaffoldOptions): Promise<Scaffold> {
  const problem = pluginNameProblem(name);
  if (problem) throw new InvalidInputError(`plugin name ${JSON.stringify(name)}: ${problem}`, { field: "name" });
  if (options.publisher.trim() === "" || options.publisher.length > 100) throw new InvalidInputError("--publisher: expected 1 to 100 characters", { field: "publisher" });
  const dir = resolve(options.parentDir ?? ".", name);
  await ensureEmpty(dir);
  const files = (options.typed ? typedScaffoldFiles : scaffoldFiles)({
    name,
    publisher: options.publisher,
    sdkDir: join(PROJECT_ROOT, "plugins", "sdk"),
    bin: join(PROJECT_ROOT, "bin", "clawhive.js"),
    guide: join(PROJECT_ROOT, "docs", "plugins.md"),
  });
  for (const [path, content] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    // `wx`: a file that appeared meanwhile is an error, never overwritten.
    await writeFile(join(dir, path), content, { flag: "wx" });
  }
  return { dir, files: files.map(([path]) => path) };
}

async function ensureEmpty(dir: string): Promise<void> {
  let info;
  try {
    info = await stat(dir);
  } catch {
    return;
  }
  if (!info.isDirectory()) throw new ConflictError("scaffold_exists", `${dir}: exists and is not a folder; choose another name or --dir`);
  if ((await readdir(dir)).length > 0) throw new ConflictError("scaffold_exists", `${dir}: the folder exists and is not empty; choose another name or --dir, or remove it`);
}
