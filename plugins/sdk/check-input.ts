import { fail } from "./tool-failure.js";
import type { InputSchema, JsonType, PropertySchema } from "./types.js";

function typeOf(value: unknown): JsonType | "undefined" | "other" {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    case "number":
      return Number.isInteger(value) ? "integer" : "number";
    case "object":
      return "object";
    case "undefined":
      return "undefined";
    default:
      return "other";
  }
}

function typeMatches(expected: JsonType, actual: ReturnType<typeof typeOf>): boolean {
  // JSON Schema: every integer is also a number.
  return expected === actual || (expected === "number" && actual === "integer");
}

function checkProperty(name: string, schema: PropertySchema, value: unknown): void {
  const actual = typeOf(value);
  if (schema.type !== undefined) {
    const expected: readonly JsonType[] = typeof schema.type === "string" ? [schema.type] : schema.type;
    if (!expected.some((t) => typeMatches(t, actual))) {
      throw fail.invalidInput(`input field "${name}": must be ${expected.join(" or ")}, got ${actual}`);
    }
  }
  if (schema.enum !== undefined && !schema.enum.some((allowed) => allowed === value)) {
    const allowed = schema.enum.map((v) => JSON.stringify(v)).join(", ");
    throw fail.invalidInput(`input field "${name}": must be one of ${allowed}`);
  }
}

/**
 * A small, early check of a tool's input against its schema: an object, the `required` fields
 * present, each declared field of its declared primitive `type` and within its `enum`, and no
 * unknown field when `additionalProperties` is false. The host validates the full schema; this
 * check is what lets a tool trust the types `run` receives, and names the field that is wrong.
 */
export function checkInput(schema: InputSchema, input: unknown): Record<string, unknown> {
  if (typeOf(input) !== "object") {
    throw fail.invalidInput(`input: must be a JSON object, got ${typeOf(input)}`);
  }
  const record = input as Record<string, unknown>;
  for (const name of schema.required ?? []) {
    if (record[name] === undefined) throw fail.invalidInput(`input field "${name}": is required`);
  }
  for (const [name, value] of Object.entries(record)) {
    const property = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
    if (property === undefined) {
      if (schema.additionalProperties === false) {
        const known = Object.keys(schema.properties).join(", ");
        throw fail.invalidInput(`input field "${name}": is not a field of this tool (fields: ${known})`);
      }
      continue;
    }
    checkProperty(name, property, value);
  }
  return record;
}
