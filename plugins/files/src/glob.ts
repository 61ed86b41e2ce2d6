import { defineTool, fail } from "../../sdk/index.js";
import { joinPath, resolvePath } from "../../sdk/fs.js";
import { compileGlob, isLiteralSegment } from "./patterns.js";
import { NOISY_DIRECTORIES, TreeWalk } from "./walk.js";

const DEFAULT_LIMIT = 200;
const MAX_LIMIT = 5000;

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
    "pattern names them.",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "Glob relative to `path` (or absolute)" },
      path: { type: "string", description: "Directory to search below (default: the first mount)" },
      limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, description: "Most files to return" },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  capabilities: ["fs.read"],
  risk: "safe",
  run({ pattern, path = ".", limit = DEFAULT_LIMIT }) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw fail.invalidInput(`input field "limit": must be between 1 and ${MAX_LIMIT}, got ${limit}`);
    }
    const start = pattern.startsWith("/") ? "/" : resolvePath(path);
    const { base, rest } = splitBase(start, pattern);
    if (rest.length === 0) throw fail.invalidInput(`input field "pattern": names no files`);
    const relative = rest.join("/");
    const matcher = compileGlob(relative, "pattern");
    const walk = new TreeWalk(resolvePath(base), {
      // Without `**` (or braces, which may hold `/`), no match lies deeper than the pattern.
      maxDepth: /\*\*|\{/.test(relative) ? Number.POSITIVE_INFINITY : rest.length,
      skipDirectories: NOISY_DIRECTORIES.filter((name) => !pattern.includes(name)),
    });
    const files: string[] = [];
    let truncated = false;
    for (const file of walk.files()) {
      if (!matcher.test(file.relative)) continue;
      if (files.length === limit) {
        truncated = true;
        break;
      }
      files.push(file.path);
    }
    return {
      base: resolvePath(base),
      pattern: relative,
      files,
      truncated: truncated || walk.truncated,
      ...(walk.unreadableCount > 0 ? { unreadable: walk.unreadable, unreadable_count: walk.unreadableCount } : {}),
    };
  },
});
