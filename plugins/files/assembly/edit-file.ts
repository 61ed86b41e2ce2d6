import { JsonObject, JsonWriter, Outcome, Risk, Tool, ToolError } from "../../sdk-as/index";
import { readText, resolvePath, writeText } from "../../sdk-as/fs";

function countOccurrences(text: string, needle: string): i32 {
  let count = 0;
  for (let i = text.indexOf(needle); i != -1; i = text.indexOf(needle, i + needle.length)) count += 1;
  return count;
}

/** Why `oldText` may be missing although the model saw it: the usual near misses. */
function nearMissHint(text: string, oldText: string): string {
  if (text.includes("\r\n") && oldText.includes("\n") && !oldText.includes("\r\n")) {
    return " The file has CRLF line endings; old_text has LF only.";
  }
  const trimmed = oldText.trim();
  if (trimmed != "" && trimmed != oldText && text.includes(trimmed)) {
    return " It does appear without its leading or trailing whitespace.";
  }
  return "";
}

export class EditFile extends Tool {
  constructor() {
    super(
      "edit_file",
      "Edit a text file by exact find-and-replace: replace `old_text` with `new_text`. `old_text` must appear " +
        "exactly once (include enough surrounding lines to make it unique), or set `replace_all` to replace every " +
        "occurrence. Whitespace and line endings must match exactly. A relative path resolves against the first mount.",
      '{"type":"object","properties":{"path":{"type":"string","description":"Path of the file to edit"},' +
        '"old_text":{"type":"string","description":"The exact text to find"},' +
        '"new_text":{"type":"string","description":"The text to put in its place"},' +
        '"replace_all":{"type":"boolean","description":"Replace every occurrence (default false)"}},' +
        '"required":["path","old_text","new_text"],"additionalProperties":false}',
      ["fs.read", "fs.write"],
      Risk.Guarded,
    );
  }

  run(input: JsonObject): Outcome {
    const oldText = <string>input.string("old_text");
    const newText = <string>input.string("new_text");
    const replaceAll = input.bool("replace_all", false);
    if (oldText == "") return Outcome.fail(ToolError.invalidInput("input field \"old_text\": must not be empty"));
    if (oldText == newText) return Outcome.fail(ToolError.invalidInput("input field \"new_text\": is the same as old_text; nothing to change"));
    const resolved = resolvePath(<string>input.string("path"));
    if (resolved.error != null) return Outcome.fail(<ToolError>resolved.error);
    const file = resolved.value;
    const read = readText(file);
    if (read.error != null) return Outcome.fail(<ToolError>read.error);
    const text = read.value;
    const count = countOccurrences(text, oldText);
    if (count == 0) {
      return Outcome.fail(ToolError.failed(file + ": old_text was not found; read the file again and copy the text exactly." + nearMissHint(text, oldText)));
    }
    if (count > 1 && !replaceAll) {
      const n = count.toString();
      return Outcome.fail(ToolError.failed(file + ": old_text appears " + n + " times; add surrounding lines to make it unique, or set replace_all to replace all " + n));
    }
    const edited = text.split(oldText).join(newText);
    const written = writeText(file, edited, false);
    if (written.error != null) return Outcome.fail(<ToolError>written.error);
    return Outcome.ok(new JsonWriter().beginObject().key("path").string(file).key("replacements").integer(count).key("bytes").integer(written.value).endObject().text());
  }
}
