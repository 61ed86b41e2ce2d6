import { search } from "clawhive:host/fs@0.1.1";
import type { CaseMode, SkipCounts } from "clawhive:host/fs@0.1.1";
import { defineTool, fail } from "../../sdk/index.js";
import { resolvePath } from "../../sdk/fs.js";
import { compileRegExp, MAX_OUTPUT_CHARS, noisyExcludes } from "./patterns.js";

const DEFAULT_MAX_MATCHES = 100;
const MAX_MATCHES = 1000;
const MAX_CONTEXT = 10;

interface Match {
  file: string;
  line: number;
  text: string;
  before?: string[];
  after?: string[];
}

function between(field: string, value: number | undefined, min: number, max: number): number | undefined {
  if (value !== undefined && (value < min || value > max)) throw fail.invalidInput(`input field "${field}": must be between ${min} and ${max}, got ${value}`);
  return value;
}

function caseModeOf(mode: string | undefined, insensitive: boolean | undefined): CaseMode {
  if (mode !== undefined && insensitive !== undefined && (mode === "insensitive") !== insensitive) {
    throw fail.invalidInput(`input fields "case" and "case_insensitive": disagree; give one of them`);
  }
  return (mode as CaseMode | undefined) ?? (insensitive === true ? "insensitive" : "sensitive");
}

/** The skip counts a model can act on, in the tool's words. */
function skippedOf(s: SkipCounts): Record<string, number> {
  return {
    binary: s.binary,
    too_large: s.tooLarge,
    unreadable: s.unreadable,
    sensitive: s.sensitive,
    symlink: s.symlink,
    hard_link: s.hardLink,
    special: s.special,
  };
}

export const grep = defineTool({
  description:
    "Search text files for a regular expression (JavaScript syntax), line by line. `path` is a file or a " +
    "directory searched recursively (default: the first mount); `glob` filters file names (`*.ts`) or, with a " +
    "`/`, paths below `path` (`src/**/*.ts`); `exclude` leaves files and directories out. `literal` searches " +
    "plain text; `case` is sensitive (default), insensitive or smart (insensitive unless the pattern has an " +
    "upper-case letter); `context` (or `before_context`/`after_context`) adds surrounding lines. Returns file, " +
    `line number and line text per match, at most \`max_matches\` (default ${DEFAULT_MAX_MATCHES}), with ` +
    "`truncated` (and `stopped`, the cap that ended it: `max-output` once the lines pass 1 MiB of text) when " +
    "there was more. Binary files, files over the read cap, sensitive files and symbolic links are skipped and " +
    "counted; .git and node_modules are skipped unless named.",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "Regular expression, e.g. `function\\s+main` (plain text with `literal`)" },
      path: { type: "string", description: "File or directory to search (default: the first mount)" },
      glob: { type: "string", description: "Only search files matching this glob" },
      exclude: { type: "array", items: { type: "string" }, description: "Globs of files and directories not to search" },
      literal: { type: "boolean", description: "Search `pattern` as plain text (default false)" },
      case: { type: "string", enum: ["sensitive", "insensitive", "smart"], description: "Case matching (default sensitive)" },
      case_insensitive: { type: "boolean", description: "Ignore case (same as case: insensitive)" },
      context: { type: "integer", minimum: 0, maximum: MAX_CONTEXT, description: "Lines of context before and after each match" },
      before_context: { type: "integer", minimum: 0, maximum: MAX_CONTEXT, description: "Lines of context before each match" },
      after_context: { type: "integer", minimum: 0, maximum: MAX_CONTEXT, description: "Lines of context after each match" },
      max_matches: { type: "integer", minimum: 1, maximum: MAX_MATCHES, description: "Most matches to return" },
      max_matches_per_file: { type: "integer", minimum: 1, maximum: MAX_MATCHES, description: "Most matches to return from one file" },
      max_files: { type: "integer", minimum: 1, maximum: 200000, description: "Most files to read" },
      max_line_length: { type: "integer", minimum: 16, maximum: 4096, description: "Longer lines are cut around the match (default 300)" },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  capabilities: ["fs.read"],
  risk: "safe",
  run(input) {
    const { pattern, path = ".", glob, literal = false } = input;
    const maxMatches = between("max_matches", input.max_matches, 1, MAX_MATCHES) ?? DEFAULT_MAX_MATCHES;
    const context = between("context", input.context, 0, MAX_CONTEXT);
    const before = between("before_context", input.before_context, 0, MAX_CONTEXT) ?? context ?? 0;
    const after = between("after_context", input.after_context, 0, MAX_CONTEXT) ?? context ?? 0;
    const exclude = input.exclude ?? [];
    if (exclude.some((e) => typeof e !== "string")) throw fail.invalidInput(`input field "exclude": must be a list of strings`);
    const caseMode = caseModeOf(input.case, input.case_insensitive);
    // Checked here for a message naming the field; the host compiles it again and runs it.
    if (!literal) compileRegExp(pattern, { field: "pattern" });
    const root = resolvePath(path);
    const result = search(root, {
      pattern,
      mode: literal ? "literal" : "regex",
      caseMode,
      includeGlobs: glob === undefined ? [] : [glob],
      excludeGlobs: [...noisyExcludes([path, glob ?? "", ...exclude]), ...(exclude as string[])],
      contextBefore: before,
      contextAfter: after,
      maxMatches,
      maxMatchesPerFile: between("max_matches_per_file", input.max_matches_per_file, 1, MAX_MATCHES),
      maxFiles: input.max_files,
      maxLineLength: input.max_line_length,
      maxOutputChars: MAX_OUTPUT_CHARS,
    });
    const withContext = before > 0 || after > 0;
    const matches: Match[] = result.matches.map((m) => ({
      file: m.path,
      line: m.line,
      text: m.text,
      ...(withContext ? { before: m.before, after: m.after } : {}),
    }));
    return {
      pattern,
      path: root,
      matches,
      truncated: result.truncated,
      ...(result.stopped === undefined ? {} : { stopped: result.stopped }),
      files_searched: result.filesScanned,
      skipped: skippedOf(result.skipped),
      ...(result.unreadable.length > 0 ? { unreadable: result.unreadable } : {}),
    };
  },
});
