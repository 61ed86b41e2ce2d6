/**
 * The input check the TypeScript SDK makes (plugins/sdk/check-input.ts), with its messages: an
 * object, the `required` fields present, each declared field of its declared primitive `type` and
 * within its `enum`, no unknown field when `additionalProperties` is false. It reads the tool's own
 * input schema, so what is described and what is checked cannot drift apart.
 */
import { JsonArray, JsonKind, JsonObject, JsonString, JsonValue, JsonNumber, JsonBool } from "./json";
import { JsonWriter } from "./json-write";

/** The problem with `input` against `schema`, or null when it passes. */
export function checkInput(schema: JsonObject, input: JsonValue): string | null {
  if (input.kind != JsonKind.Object) return "input: must be a JSON object, got " + input.typeName();
  const record = <JsonObject>input;
  const required = schema.get("required");
  if (required != null && required.kind == JsonKind.Array) {
    const names = (<JsonArray>required).items;
    for (let i = 0; i < names.length; i++) {
      const name = unchecked(names[i]);
      if (name.kind != JsonKind.String) continue;
      const key = (<JsonString>name).value;
      if (!record.has(key)) return "input field \"" + key + "\": is required";
    }
  }
  const p = schema.get("properties");
  const properties = p != null && p.kind == JsonKind.Object ? <JsonObject>p : new JsonObject();
  const extra = schema.get("additionalProperties");
  const closed = extra != null && extra.kind == JsonKind.Bool && !(<JsonBool>extra).value;
  for (let i = 0; i < record.keys.length; i++) {
    const name = unchecked(record.keys[i]);
    const property = properties.get(name);
    if (property == null || property.kind != JsonKind.Object) {
      if (closed) return "input field \"" + name + "\": is not a field of this tool (fields: " + properties.keys.join(", ") + ")";
      continue;
    }
    const problem = checkProperty(name, <JsonObject>property, record.values.get(name));
    if (problem != null) return problem;
  }
  return null;
}

function checkProperty(name: string, schema: JsonObject, value: JsonValue): string | null {
  const actual = value.typeName();
  const type = schema.get("type");
  if (type != null) {
    const expected = new Array<string>();
    if (type.kind == JsonKind.String) expected.push((<JsonString>type).value);
    else if (type.kind == JsonKind.Array) {
      const items = (<JsonArray>type).items;
      for (let i = 0; i < items.length; i++) if (unchecked(items[i]).kind == JsonKind.String) expected.push((<JsonString>unchecked(items[i])).value);
    }
    let matched = false;
    // JSON Schema: every integer is also a number.
    for (let i = 0; i < expected.length; i++) {
      const t = unchecked(expected[i]);
      if (t == actual || (t == "number" && actual == "integer")) matched = true;
    }
    if (!matched) return "input field \"" + name + "\": must be " + expected.join(" or ") + ", got " + actual;
  }
  const allowed = schema.get("enum");
  if (allowed != null && allowed.kind == JsonKind.Array) {
    const items = (<JsonArray>allowed).items;
    for (let i = 0; i < items.length; i++) if (samePrimitive(unchecked(items[i]), value)) return null;
    const shown = new Array<string>();
    for (let i = 0; i < items.length; i++) shown.push(new JsonWriter().value(unchecked(items[i])).text());
    return "input field \"" + name + "\": must be one of " + shown.join(", ");
  }
  return null;
}

/** `===` on JSON values: primitives by value, objects and arrays never equal. */
function samePrimitive(a: JsonValue, b: JsonValue): bool {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case JsonKind.Null: return true;
    case JsonKind.Bool: return (<JsonBool>a).value == (<JsonBool>b).value;
    case JsonKind.Number: return (<JsonNumber>a).value == (<JsonNumber>b).value;
    case JsonKind.String: return (<JsonString>a).value == (<JsonString>b).value;
  }
  return false;
}
