/**
 * The mail plugin's `send` tool over `clawhive:host/mail`: who may receive is the grant's
 * business, checked by the host on the arguments before a person is asked to approve.
 */
import { JsonObject, JsonWriter, Outcome, Risk, Tool, ToolError } from "../../sdk-as/index";
import { send } from "../../sdk-as/host/mail";
import { JsonArray, JsonKind, JsonString } from "../../sdk-as/json";

/** The strings of list field `field` (the schema has checked they are strings), empty when absent. */
function strings(input: JsonObject, field: string): string[] {
  const out = new Array<string>();
  const v = input.get(field);
  if (v == null || v.kind != JsonKind.Array) return out;
  const items = (<JsonArray>v).items;
  for (let i = 0; i < items.length; i++) out.push((<JsonString>unchecked(items[i])).value);
  return out;
}

const ADDRESSES = '{"type":"array","items":{"type":"string","maxLength":254},"maxItems":100,';

export class Send extends Tool {
  constructor() {
    super(
      "send",
      "Send a plain-text email. Each recipient is one bare address (alice@corp.example, no display name); " +
        "only recipients the agent's grant allows can be reached, and a person approves each message " +
        "(recipients, subject and body) before it is sent.",
      '{"type":"object","properties":{"to":' + ADDRESSES + '"minItems":1,"description":"Recipients"},' +
        '"cc":' + ADDRESSES + '"description":"Copy recipients"},' +
        '"bcc":' + ADDRESSES + '"description":"Blind copy recipients"},' +
        '"subject":{"type":"string","maxLength":998,"description":"One line"},' +
        '"body":{"type":"string","description":"Plain text"}},' +
        '"required":["to","subject","body"],"additionalProperties":false}',
      ["mail.send"],
      Risk.Guarded,
    );
  }

  run(input: JsonObject): Outcome {
    const sent = send(strings(input, "to"), strings(input, "cc"), strings(input, "bcc"), <string>input.string("subject"), <string>input.string("body"));
    const error = sent.error;
    if (error != null) return Outcome.fail(ToolError.fromHost(error));
    const w = new JsonWriter().beginObject().key("message_id").string(sent.value.messageId).key("accepted");
    w.beginArray();
    const accepted = sent.value.accepted;
    for (let i = 0; i < accepted.length; i++) w.string(unchecked(accepted[i]));
    return Outcome.ok(w.endArray().endObject().text());
  }
}

