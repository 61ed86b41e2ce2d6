/**
 * bench-echo's `echo` in AssemblyScript. It does more than bench-echo's (which hands its input
 * back untouched): the input is parsed, checked against the schema and written again, as every
 * tool of the SDK does, so the comparison leans against this guest. The build lays the SDK out
 * beside the plugin (runtime/plugins/assemblyscript-sources.ts): `../../sdk-as/` from here.
 */
import { definePlugin, JsonObject, JsonWriter, Outcome, Risk, Tool } from "../../sdk-as/index";

class Echo extends Tool {
  constructor() {
    super("echo", "Returns its input.", '{"type":"object"}', [], Risk.Safe);
  }

  run(input: JsonObject): Outcome {
    return Outcome.ok(new JsonWriter().value(input).text());
  }
}

definePlugin([new Echo()]);

export { cabi_realloc, describe, call, post_describe, post_call } from "../../sdk-as/index";
