import { JsonObject, JsonWriter, Outcome, Risk, Tool, ToolError } from "../../sdk-as/index";
import { resolvePath } from "../../sdk-as/fs";
import { CaseMode, search, SearchMode, SearchOptions, SkipCounts } from "../../sdk-as/host/fs";
import { formatNumber } from "../../sdk-as/json-write";
import { concat, excludesOf, MAX_OUTPUT_CHARS, noisyExcludes } from "./patterns";
import { regExpProblem } from "./regexp";

const DEFAULT_MAX_MATCHES: i64 = 100;
const MAX_MATCHES: f64 = 1000;
const MAX_CONTEXT: f64 = 10;

/** An integer field's value, -1 when absent, or the range problem (in `problem`). */
class Bounded {
  problem: string | null = null;
  value: i64 = -1;
}

function between(input: JsonObject, field: string, min: f64, max: f64): Bounded {
  const out = new Bounded();
  const v = input.number(field);
  if (v == null) return out;
  if (v.value < min || v.value > max) {
    out.problem = "input field \"" + field + "\": must be between " + formatNumber(min) + " and " + formatNumber(max) + ", got " + formatNumber(v.value);
  } else {
    out.value = <i64>v.value;
  }
  return out;
}

function caseNumber(mode: string): i32 {
  return mode == "insensitive" ? CaseMode.Insensitive : mode == "smart" ? CaseMode.Smart : CaseMode.Sensitive;
}

/** The skip counts a model can act on, in the tool's words. */
function writeSkipped(w: JsonWriter, s: SkipCounts): void {
  w.beginObject()
    .key("binary").integer(s.binary)
    .key("too_large").integer(s.tooLarge)
    .key("unreadable").integer(s.unreadable)
    .key("sensitive").integer(s.sensitive)
    .key("symlink").integer(s.symlink)
    .key("hard_link").integer(s.hardLink)
    .key("special").integer(s.special)
    .endObject();
}

function writeStrings(w: JsonWriter, list: string[]): void {
  w.beginArray();
  for (let i = 0; i < list.length; i++) w.string(unchecked(list[i]));
  w.endArray();
}

export class Grep extends Tool {
  constructor() {
    super(
      "grep",
      "Search text files for a regular expression (JavaScript syntax), line by line. `path` is a file or a " +
        "directory searched recursively (default: the first mount); `glob` filters file names (`*.ts`) or, with a " +
        "`/`, paths below `path` (`src/**/*.ts`); `exclude` leaves files and directories out. `literal` searches " +
        "plain text; `case` is sensitive (default), insensitive or smart (insensitive unless the pattern has an " +
        "upper-case letter); `context` (or `before_context`/`after_context`) adds surrounding lines. Returns file, " +
        "line number and line text per match, at most `max_matches` (default 100), with " +
        "`truncated` (and `stopped`, the cap that ended it: `max-output` once the lines pass 1 MiB of text) when " +
        "there was more. Binary files, files over the read cap, sensitive files and symbolic links are skipped and " +
        "counted; .git and node_modules are skipped unless named.",
      '{"type":"object","properties":{' +
        '"pattern":{"type":"string","description":"Regular expression, e.g. `function\\\\s+main` (plain text with `literal`)"},' +
        '"path":{"type":"string","description":"File or directory to search (default: the first mount)"},' +
        '"glob":{"type":"string","description":"Only search files matching this glob"},' +
        '"exclude":{"type":"array","items":{"type":"string"},"description":"Globs of files and directories not to search"},' +
        '"literal":{"type":"boolean","description":"Search `pattern` as plain text (default false)"},' +
        '"case":{"type":"string","enum":["sensitive","insensitive","smart"],"description":"Case matching (default sensitive)"},' +
        '"case_insensitive":{"type":"boolean","description":"Ignore case (same as case: insensitive)"},' +
        '"context":{"type":"integer","minimum":0,"maximum":10,"description":"Lines of context before and after each match"},' +
        '"before_context":{"type":"integer","minimum":0,"maximum":10,"description":"Lines of context before each match"},' +
        '"after_context":{"type":"integer","minimum":0,"maximum":10,"description":"Lines of context after each match"},' +
        '"max_matches":{"type":"integer","minimum":1,"maximum":1000,"description":"Most matches to return"},' +
        '"max_matches_per_file":{"type":"integer","minimum":1,"maximum":1000,"description":"Most matches to return from one file"},' +
        '"max_files":{"type":"integer","minimum":1,"maximum":200000,"description":"Most files to read"},' +
        '"max_line_length":{"type":"integer","minimum":16,"maximum":4096,"description":"Longer lines are cut around the match (default 300)"}},' +
        '"required":["pattern"],"additionalProperties":false}',
      ["fs.read"],
      Risk.Safe,
    );
  }

  run(input: JsonObject): Outcome {
    const pattern = <string>input.string("pattern");
    const p = input.string("path");
    const path = p == null ? "." : p;
    const glob = input.string("glob");
    const literal = input.bool("literal", false);
    const maxMatches = between(input, "max_matches", 1, MAX_MATCHES);
    if (maxMatches.problem != null) return Outcome.fail(ToolError.invalidInput(<string>maxMatches.problem));
    const context = between(input, "context", 0, MAX_CONTEXT);
    if (context.problem != null) return Outcome.fail(ToolError.invalidInput(<string>context.problem));
    const beforeField = between(input, "before_context", 0, MAX_CONTEXT);
    if (beforeField.problem != null) return Outcome.fail(ToolError.invalidInput(<string>beforeField.problem));
    const afterField = between(input, "after_context", 0, MAX_CONTEXT);
    if (afterField.problem != null) return Outcome.fail(ToolError.invalidInput(<string>afterField.problem));
    const before = beforeField.value >= 0 ? beforeField.value : context.value >= 0 ? context.value : 0;
    const after = afterField.value >= 0 ? afterField.value : context.value >= 0 ? context.value : 0;
    const exclude = excludesOf(input);
    if (exclude == null) return Outcome.fail(ToolError.invalidInput("input field \"exclude\": must be a list of strings"));
    const mode = input.string("case");
    const insensitive = input.get("case_insensitive");
    if (mode != null && insensitive != null && (mode == "insensitive") != input.bool("case_insensitive", false)) {
      return Outcome.fail(ToolError.invalidInput("input fields \"case\" and \"case_insensitive\": disagree; give one of them"));
    }
    const caseMode = mode != null ? caseNumber(mode) : input.bool("case_insensitive", false) ? CaseMode.Insensitive : CaseMode.Sensitive;
    // Checked here for a message naming the field; the host compiles it again and runs it.
    if (!literal) {
      const problem = regExpProblem(pattern);
      if (problem != null) {
        return Outcome.fail(ToolError.invalidInput("pattern \"" + pattern + "\": is not a valid regular expression: " + problem));
      }
    }
    const perFile = between(input, "max_matches_per_file", 1, MAX_MATCHES);
    if (perFile.problem != null) return Outcome.fail(ToolError.invalidInput(<string>perFile.problem));
    // The host checks these two caps itself; beyond a u32 they could not even be lowered.
    const maxFiles = between(input, "max_files", 0, 4294967295);
    if (maxFiles.problem != null) return Outcome.fail(ToolError.invalidInput(<string>maxFiles.problem));
    const maxLine = between(input, "max_line_length", 0, 4294967295);
    if (maxLine.problem != null) return Outcome.fail(ToolError.invalidInput(<string>maxLine.problem));
    const resolved = resolvePath(path);
    if (resolved.error != null) return Outcome.fail(<ToolError>resolved.error);
    const root = resolved.value;
    const options = new SearchOptions(pattern);
    options.mode = literal ? SearchMode.Literal : SearchMode.Regex;
    options.caseMode = caseMode;
    options.includeGlobs = glob == null ? [] : [glob];
    const named = concat([path, glob == null ? "" : glob], exclude);
    options.excludeGlobs = concat(noisyExcludes(named), exclude);
    options.contextBefore = before;
    options.contextAfter = after;
    options.maxMatches = maxMatches.value >= 0 ? maxMatches.value : DEFAULT_MAX_MATCHES;
    options.maxMatchesPerFile = perFile.value;
    options.maxFiles = maxFiles.value;
    options.maxLineLength = maxLine.value;
    options.maxOutputChars = MAX_OUTPUT_CHARS;
    const searched = search(root, options);
    const error = searched.error;
    if (error != null) return Outcome.fail(ToolError.fromHost(error));
    const result = searched.value;
    const withContext = before > 0 || after > 0;
    const w = new JsonWriter().beginObject().key("pattern").string(pattern).key("path").string(root).key("matches").beginArray();
    for (let i = 0; i < result.matches.length; i++) {
      const m = unchecked(result.matches[i]);
      w.beginObject().key("file").string(m.path).key("line").integer(m.line).key("text").string(m.text);
      if (withContext) {
        w.key("before");
        writeStrings(w, m.before);
        w.key("after");
        writeStrings(w, m.after);
      }
      w.endObject();
    }
    w.endArray().key("truncated").bool(result.truncated);
    const stopped = result.stopped;
    if (stopped != null) w.key("stopped").string(stopped);
    w.key("files_searched").integer(result.filesScanned).key("skipped");
    writeSkipped(w, result.skipped);
    if (result.unreadable.length > 0) {
      w.key("unreadable");
      writeStrings(w, result.unreadable);
    }
    return Outcome.ok(w.endObject().text());
  }
}
