import { JsonObject, JsonWriter, Outcome, Risk, Tool, ToolError } from "../../sdk-as/index";
import { resolvePath } from "../../sdk-as/fs";
import { Entry, listDir } from "../../sdk-as/host/fs";

const MAX_ENTRIES = 1000;

/** By name, in UTF-16 code unit order (what `<` on JavaScript strings compares). */
function byName(a: Entry, b: Entry): i32 {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export class ListDir extends Tool {
  constructor() {
    super(
      "list_dir",
      "List a directory: each entry's name, kind (file, directory, symlink, other) and size in bytes, in name " +
        "order (at most 1000). A relative path resolves against the first mount; \".\" is the first mount.",
      '{"type":"object","properties":{"path":{"type":"string","description":"Path of the directory, e.g. /work or ."}},' +
        '"required":["path"],"additionalProperties":false}',
      ["fs.read"],
      Risk.Safe,
    );
  }

  run(input: JsonObject): Outcome {
    const resolved = resolvePath(<string>input.string("path"));
    if (resolved.error != null) return Outcome.fail(<ToolError>resolved.error);
    const dir = resolved.value;
    const listed = listDir(dir);
    const error = listed.error;
    if (error != null) return Outcome.fail(ToolError.fromHost(error));
    const entries = listed.value.sort(byName);
    const w = new JsonWriter().beginObject().key("path").string(dir).key("entries").beginArray();
    const shown = entries.length < MAX_ENTRIES ? entries.length : MAX_ENTRIES;
    for (let i = 0; i < shown; i++) {
      const e = unchecked(entries[i]);
      w.beginObject().key("name").string(e.name).key("kind").string(e.kind).key("size").number(<f64>e.size).endObject();
    }
    w.endArray().key("total").integer(entries.length).key("truncated").bool(entries.length > MAX_ENTRIES);
    return Outcome.ok(w.endObject().text());
  }
}
