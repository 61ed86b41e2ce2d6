import { JsonObject, JsonWriter, Outcome, Risk, Tool, ToolError } from "../../sdk-as/index";
import { readText, resolvePath } from "../../sdk-as/fs";
import { formatNumber } from "../../sdk-as/json-write";

const DEFAULT_LIMIT: f64 = 2000;
/** A result larger than this is cut at a line boundary (the host also caps results). */
const MAX_CHARS: i32 = 256 * 1024;

/** The lines of `text`, each with its line terminator; a final terminator opens no new line. */
function splitLines(text: string): string[] {
  const lines = new Array<string>();
  let from = 0;
  while (from < text.length) {
    const nl = text.indexOf("\n", from);
    const end = nl < 0 ? text.length : nl + 1;
    lines.push(text.substring(from, end));
    from = end;
  }
  return lines;
}

export class ReadFile extends Tool {
  constructor() {
    super(
      "read_file",
      "Read a text file. Returns its text from line `offset` (1-based, default 1), at most `limit` lines " +
        "(default 2000), with the file's total line count; `next_offset` is set when there is more. " +
        "Binary files are refused. A relative path resolves against the first mount.",
      '{"type":"object","properties":{"path":{"type":"string","description":"Path of the file, e.g. /work/src/main.ts"},' +
        '"offset":{"type":"integer","minimum":1,"description":"First line to return (1-based)"},' +
        '"limit":{"type":"integer","minimum":1,"description":"Most lines to return"}},"required":["path"],"additionalProperties":false}',
      ["fs.read"],
      Risk.Safe,
    );
  }

  run(input: JsonObject): Outcome {
    const o = input.number("offset");
    const l = input.number("limit");
    const offset = o == null ? 1 : o.value;
    const limit = l == null ? DEFAULT_LIMIT : l.value;
    if (offset < 1) return Outcome.fail(ToolError.invalidInput("input field \"offset\": must be at least 1, got " + formatNumber(offset)));
    if (limit < 1) return Outcome.fail(ToolError.invalidInput("input field \"limit\": must be at least 1, got " + formatNumber(limit)));
    const resolved = resolvePath(<string>input.string("path"));
    if (resolved.error != null) return Outcome.fail(<ToolError>resolved.error);
    const file = resolved.value;
    const read = readText(file);
    if (read.error != null) return Outcome.fail(<ToolError>read.error);
    const lines = splitLines(read.value);
    const count = lines.length;
    if (offset > 1 && offset > <f64>count) {
      return Outcome.fail(ToolError.invalidInput("input field \"offset\": " + formatNumber(offset) + " is past the end of " + file + " (" + count.toString() + " lines)"));
    }
    const first = <i32>offset - 1;
    const last = <f64>count < offset - 1 + limit ? count : <i32>(offset - 1 + limit);
    const parts = new Array<string>();
    let chars = 0;
    let end = first;
    while (end < last) {
      const line = unchecked(lines[end]);
      if (chars + line.length > MAX_CHARS) {
        // Always return something: a first line longer than the cap is cut.
        if (end == first) {
          parts.push(line.slice(0, MAX_CHARS));
          end += 1;
        }
        break;
      }
      parts.push(line);
      chars += line.length;
      end += 1;
    }
    const truncated = end < count;
    const w = new JsonWriter().beginObject()
      .key("path").string(file)
      .key("content").string(parts.join(""))
      .key("start_line").integer(count == 0 ? 0 : <i64>offset)
      .key("end_line").integer(end)
      .key("total_lines").integer(count)
      .key("truncated").bool(truncated);
    if (truncated) w.key("next_offset").integer(end + 1);
    return Outcome.ok(w.endObject().text());
  }
}
