import { walk } from "clawhive:host/fs@0.1.1";
import { defineTool, fail } from "../../sdk/index.js";
import { joinPath, resolvePath } from "../../sdk/fs.js";
import { isLiteralSegment, MAX_OUTPUT_CHARS, noisyExcludes } from "./patterns.js";

const DEFAULT_LIMIT = 200;
const MAX_LIMIT = 5000;
/** The host's deepest walk. */
const MAX_DEPTH = 128;

/** Moves the pattern's leading plain segments into the base: `src/**\/*.ts` walks only `src`. */
function splitBase(base: string, pattern: string): { base: string; rest: string[] } {
  const rest = pattern.split("/").filter((s) => s !== "" && s !== ".");
  let dir = base;
  while (rest.length > 1 && isLiteralSegment(rest[0] ?? "")) dir = joinPath(dir, rest.shift() ?? "");
  return { base: dir, rest };
}

export const glob = defineTool({
  description:
    "Find files by glob pattern below a directory, e.g. `src/**/*.ts`, `*.{md,txt}`, `test/?[0-9].json`. " +
    "`*` and `?` stay within one directory level, `**` spans levels, `[...]` is a set, `{a,b}` alternatives; " +
    "`*` matches dot files too. Returns matching regular files as absolute paths (symbolic links are not " +
    `followed), at most \`limit\` (default ${DEFAULT_LIMIT}). .git and node_modules are skipped unless the ` +
    "pattern names them; `exclude` leaves out more.",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "Glob relative to `path` (or absolute)" },
      path: { type: "string", description: "Directory to search below (default: the first mount)" },
      exclude: { type: "array", items: { type: "string" }, description: "Globs of files and directories to leave out" },
      limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, description: "Most files to return" },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  capabilities: ["fs.read"],
  risk: "safe",
  run({ pattern, path = ".", exclude = [], limit = DEFAULT_LIMIT }) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw fail.invalidInput(`input field "limit": must be between 1 and ${MAX_LIMIT}, got ${limit}`);
    }
    if (exclude.some((e) => typeof e !== "string")) throw fail.invalidInput(`input field "exclude": must be a list of strings`);
    const start = pattern.startsWith("/") ? "/" : resolvePath(path);
    const { base, rest } = splitBase(start, pattern);
    if (rest.length === 0) throw fail.invalidInput(`input field "pattern": names no files`);
    const relative = rest.join("/");
    const root = resolvePath(base);
    const result = walk(root, {
      // Anchored at the base: `*.ts` is the base's own files, as in a shell.
      includeGlobs: [`/${relative}`],
      excludeGlobs: [...noisyExcludes([pattern]), ...(exclude as string[])],
      // Without `**` (or braces, which may hold `/`), no match lies deeper than the pattern.
      maxDepth: /\*\*|\{/.test(relative) ? MAX_DEPTH : Math.min(rest.length, MAX_DEPTH),
      maxResults: limit,
      maxOutputChars: MAX_OUTPUT_CHARS,
    });
    return {
      base: root,
      pattern: relative,
      files: result.entries.map((e) => e.path),
      truncated: result.truncated,
      ...(result.skipped.unreadable > 0 ? { unreadable: result.unreadable, unreadable_count: result.skipped.unreadable } : {}),
    };
  },
});
