/**
 * `say` writes its `message` to the run's log at its `level` (debug, info, warn, error) through
 * the SDK's `host/log.ts`, and answers how many characters it wrote.
 */
import { definePlugin, JsonObject, JsonWriter, Outcome, Risk, Tool } from "../../sdk-as/index";
import { debug, error, info, warn } from "../../sdk-as/host/log";

class Say extends Tool {
  constructor() {
    super(
      "say",
      "Writes a line to the run's log.",
      '{"type":"object","properties":{"level":{"type":"string","enum":["debug","info","warn","error"]},"message":{"type":"string"}},"required":["level","message"],"additionalProperties":false}',
      ["log"],
      Risk.Safe,
    );
  }

  run(input: JsonObject): Outcome {
    const level = <string>input.string("level");
    const message = <string>input.string("message");
    if (level == "debug") debug(message);
    else if (level == "info") info(message);
    else if (level == "warn") warn(message);
    else error(message);
    return Outcome.ok(new JsonWriter().beginObject().key("chars").integer(message.length).endObject().text());
  }
}

definePlugin([new Say()]);

export { cabi_realloc, describe, call, post_describe, post_call } from "../../sdk-as/index";
