import { JsonObject, JsonWriter, Outcome, Risk, Tool, ToolError } from "../../sdk-as/index";
import { resolvePath, writeText } from "../../sdk-as/fs";

export class WriteFile extends Tool {
  constructor() {
    super(
      "write_file",
      "Write a text file: create it, or replace all of its content. Missing parent directories are created. " +
        "To change part of a file, use edit_file instead. A relative path resolves against the first mount.",
      '{"type":"object","properties":{"path":{"type":"string","description":"Path of the file, e.g. /work/notes.md"},' +
        '"content":{"type":"string","description":"The file\'s whole new content"}},"required":["path","content"],"additionalProperties":false}',
      ["fs.write"],
      Risk.Guarded,
    );
  }

  run(input: JsonObject): Outcome {
    const resolved = resolvePath(<string>input.string("path"));
    if (resolved.error != null) return Outcome.fail(<ToolError>resolved.error);
    const file = resolved.value;
    const written = writeText(file, <string>input.string("content"), true);
    if (written.error != null) return Outcome.fail(<ToolError>written.error);
    return Outcome.ok(new JsonWriter().beginObject().key("path").string(file).key("bytes").integer(written.value).endObject().text());
  }
}
