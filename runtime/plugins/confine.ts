/**
 * Keeps a plugin's bundle step inside the plugin's own folder: a build of someone's plugin source
 * must not read the builder's files (`../../secret.ts`, `/etc/passwd`, a symlink out, a package
 * in a parent's node_modules) into a component that is then installed and shipped.
 */
import { readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import type { OnResolveArgs, Plugin, PluginBuild } from "esbuild";
import { InvalidInputError } from "../errors.js";

export interface ConfineOptions {
  /** Bare specifiers the build aliases to fixed files (the SDK): left to the build's `alias`. */
  aliases: Readonly<Record<string, string>>;
  /** Folders besides the plugin's own whose files may be read (the SDK's folder). */
  shared: readonly string[];
  /** Folders whose packages only bare imports may reach (first-party plugins share the project's node_modules). */
  packageRoots?: readonly string[];
}

/** Marks our own `build.resolve` calls, so the hook does not see them again. */
const NESTED = Symbol("confine");

/**
 * An esbuild plugin refusing every import, and every file, outside `root` and `options.shared`.
 * Paths are compared after `realpath`: a symlink inside the folder is judged by where it leads.
 */
export function confineToFolder(root: string, options: ConfineOptions): Plugin {
  return {
    name: "clawhive-confine",
    setup(build) {
      const roots = Promise.all([root, ...options.shared].map((dir) => realpath(dir)));
      const packageRoots = Promise.all((options.packageRoots ?? []).map((dir) => realpath(dir).catch(() => dir)));
      const inside = async (path: string, packages: boolean): Promise<boolean> => {
        let real: string;
        try {
          real = await realpath(path);
        } catch {
          return false;
        }
        const allowed = [...(await roots), ...(packages ? await packageRoots : [])];
        return allowed.some((dir) => isWithin(dir, real));
      };

      // Allowed imports are left to esbuild's own resolver (which then resolves them again, to
      // the same real path): a path a plugin returns loses what esbuild knows about the file,
      // such as its package's "type", which changes how CommonJS is imported.
      build.onResolve({ filter: /.*/ }, async (args) => {
        if ((args.pluginData as { [NESTED]?: boolean } | undefined)?.[NESTED]) return undefined;
        // Host interfaces are external (see the build's `external`), the SDK is aliased.
        if (args.path.startsWith("clawhive:") || Object.hasOwn(options.aliases, args.path)) return undefined;
        if (args.path.startsWith("@clawhive/")) return refuse(args.path, `not a module of the SDK; import ${Object.keys(options.aliases).map((a) => `"${a}"`).join(" or ")}`);
        const result = await resolveNested(build, args);
        if (result.errors.length > 0 || result.external || result.namespace !== "file") return undefined;
        const bare = isBare(args.path);
        // A package's own relative imports stay within the package roots it was found in.
        const fromPackage = (await packageRoots).some((dir) => isWithin(dir, args.importer));
        if (await inside(result.path, bare || fromPackage)) return undefined;
        const where = bare ? `${result.path}, outside the plugin folder; add the package to the plugin's own package.json and node_modules` : `${result.path}, outside the plugin folder`;
        return refuse(args.path, `resolves to ${where}; a plugin build reads only its own folder and the SDK`);
      });

      // Every file read is checked again where it is loaded, so a file cannot be reached around
      // the check above: esbuild expands a template-literal import such as import(`../${name}.ts`)
      // as a glob, and the files it matches reach onLoad without passing onResolve.
      build.onLoad({ filter: /.*/ }, async (args) => {
        if (args.namespace !== "file") return undefined;
        if (await inside(args.path, true)) return undefined;
        return {
          errors: [{ text: `${args.path}: outside the plugin folder (reached by an import built from a template, such as import(\`../\${name}\`)); a plugin build reads only its own folder and the SDK` }],
        };
      });
    },
  };
}

function resolveNested(build: PluginBuild, args: OnResolveArgs) {
  const { kind, importer, resolveDir, namespace, with: attributes } = args;
  return build.resolve(args.path, { kind, importer, resolveDir, namespace, with: attributes, pluginData: { [NESTED]: true } });
}

/** esbuild adds where the import is (file:line:column) to the error; the text says what and why. */
function refuse(specifier: string, why: string) {
  return { errors: [{ text: `import "${specifier}": ${why}` }] };
}

/** A package name, not a relative or absolute path. */
function isBare(specifier: string): boolean {
  return !(specifier.startsWith(".") || isAbsolute(specifier) || /^[a-z]:[\\/]/i.test(specifier));
}

/** Whether `path` is `dir` or inside it (both real, absolute paths). */
export function isWithin(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** The real path of a plugin folder, which every check compares against. */
export async function pluginRoot(pluginDir: string): Promise<string> {
  try {
    const real = await realpath(pluginDir);
    if ((await stat(real)).isDirectory()) return real;
  } catch {
    // reported below
  }
  throw new InvalidInputError(`${pluginDir}: not a folder; name a plugin folder (one with plugin.json)`, { field: "dir" });
}

/**
 * Reads `file` (relative to the real plugin folder `root`) as text, refusing a link that leads
 * out of the folder. `label` names the file in errors as the caller knows it.
 */
export async function readInside(root: string, file: string, options: { label: string }): Promise<string> {
  let real: string;
  try {
    real = await realpath(join(root, file));
  } catch (cause) {
    const hint = file === "plugin.json" ? "; a plugin folder holds plugin.json (start one with 'clawhive plugin new NAME')" : "";
    throw new InvalidInputError(`${options.label}: not found${hint}`, { cause });
  }
  if (!isWithin(root, real)) throw new InvalidInputError(`${options.label}: links to ${real}, outside the plugin folder; a plugin build reads only its own folder`);
  return readFile(real, "utf8");
}
