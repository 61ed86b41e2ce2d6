import { JsonObject, JsonWriter, Outcome, Risk, Tool, ToolError } from "../../sdk-as/index";
import { joinPath, resolvePath, segmentsOf } from "../../sdk-as/fs";
import { walk, WalkOptions } from "../../sdk-as/host/fs";
import { formatNumber } from "../../sdk-as/json-write";
import { concat, excludesOf, isLiteralSegment, MAX_OUTPUT_CHARS, noisyExcludes } from "./patterns";

const DEFAULT_LIMIT: f64 = 200;
const MAX_LIMIT: f64 = 5000;
/** The host's deepest walk. */
const MAX_DEPTH: i32 = 128;

export class Glob extends Tool {
  constructor() {
    super(
      "glob",
      "Find files by glob pattern below a directory, e.g. `src/**/*.ts`, `*.{md,txt}`, `test/?[0-9].json`. " +
        "`*` and `?` stay within one directory level, `**` spans levels, `[...]` is a set, `{a,b}` alternatives; " +
        "`*` matches dot files too. Returns matching regular files as absolute paths (symbolic links are not " +
        "followed), at most `limit` (default 200). .git and node_modules are skipped unless the " +
        "pattern names them; `exclude` leaves out more.",
      '{"type":"object","properties":{"pattern":{"type":"string","description":"Glob relative to `path` (or absolute)"},' +
        '"path":{"type":"string","description":"Directory to search below (default: the first mount)"},' +
        '"exclude":{"type":"array","items":{"type":"string"},"description":"Globs of files and directories to leave out"},' +
        '"limit":{"type":"integer","minimum":1,"maximum":5000,"description":"Most files to return"}},' +
        '"required":["pattern"],"additionalProperties":false}',
      ["fs.read"],
      Risk.Safe,
    );
  }

  run(input: JsonObject): Outcome {
    const pattern = <string>input.string("pattern");
    const p = input.string("path");
    const path = p == null ? "." : p;
    const l = input.number("limit");
    const limit = l == null ? DEFAULT_LIMIT : l.value;
    if (limit < 1 || limit > MAX_LIMIT) {
      return Outcome.fail(ToolError.invalidInput("input field \"limit\": must be between 1 and 5000, got " + formatNumber(limit)));
    }
    const exclude = excludesOf(input);
    if (exclude == null) return Outcome.fail(ToolError.invalidInput("input field \"exclude\": must be a list of strings"));
    let start = "/";
    if (!pattern.startsWith("/")) {
      const resolved = resolvePath(path);
      if (resolved.error != null) return Outcome.fail(<ToolError>resolved.error);
      start = resolved.value;
    }
    // The pattern's leading plain segments move into the base: `src/**/*.ts` walks only `src`.
    const rest = segmentsOf(pattern);
    let base = start;
    while (rest.length > 1 && isLiteralSegment(unchecked(rest[0]))) base = joinPath(base, rest.shift());
    if (rest.length == 0) return Outcome.fail(ToolError.invalidInput("input field \"pattern\": names no files"));
    const relative = rest.join("/");
    const resolvedBase = resolvePath(base);
    if (resolvedBase.error != null) return Outcome.fail(<ToolError>resolvedBase.error);
    const root = resolvedBase.value;
    const options = new WalkOptions();
    // Anchored at the base: `*.ts` is the base's own files, as in a shell.
    options.includeGlobs = ["/" + relative];
    options.excludeGlobs = concat(noisyExcludes([pattern]), exclude);
    // Without `**` (or braces, which may hold `/`), no match lies deeper than the pattern.
    options.maxDepth = relative.includes("**") || relative.includes("{") ? MAX_DEPTH : (rest.length < MAX_DEPTH ? rest.length : MAX_DEPTH);
    options.maxResults = <i64>limit;
    options.maxOutputChars = MAX_OUTPUT_CHARS;
    const walked = walk(root, options);
    const error = walked.error;
    if (error != null) return Outcome.fail(ToolError.fromHost(error));
    const result = walked.value;
    const w = new JsonWriter().beginObject().key("base").string(root).key("pattern").string(relative).key("files").beginArray();
    for (let i = 0; i < result.entries.length; i++) w.string(unchecked(result.entries[i]).path);
    w.endArray().key("truncated").bool(result.truncated);
    if (result.skipped.unreadable > 0) {
      w.key("unreadable").beginArray();
      for (let i = 0; i < result.unreadable.length; i++) w.string(unchecked(result.unreadable[i]));
      w.endArray().key("unreadable_count").integer(result.skipped.unreadable);
    }
    return Outcome.ok(w.endObject().text());
  }
}
