import { PluginError } from "../../errors.js";
import { jsName, jsonName, typeText, type TypedExport, type WitType } from "./wit-types.js";

/** How the worker calls one typed export: where the function is in jco's exports and its types. */
export interface TypedTool {
  /** The interface's key in jco's exports object (its export name), absent for a top-level function. */
  iface?: string;
  /** The function's key in jco's exports (lower camel case). */
  fn: string;
  params: Array<{ name: string; json: string; type: WitType }>;
  result?: WitType;
}

/** A typed export as a tool: its name, description and input JSON Schema. */
export interface TypedToolSchema {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  plan: TypedTool;
}

/** Deepest WIT nesting a parameter may have; a deeper one would outgrow the tool-schema limits. */
const MAX_DEPTH = 16;
/** Most schema nodes one tool's input may expand to (types shared in the binary expand here). */
const MAX_NODES = 5_000;

const RANGES: Readonly<Record<string, [number, number]>> = {
  s8: [-128, 127], u8: [0, 255], s16: [-32768, 32767], u16: [0, 65535],
  s32: [-2147483648, 2147483647], u32: [0, 4294967295],
};

/** A WIT type that JSON cannot carry, or an export the runtime does not serve: names the function and the type. */
export class UnmappableExport extends PluginError {
  constructor(fn: string, where: string, what: string) {
    super(
      "wit_type_unmappable",
      `function ${fn}: ${where} has type ${what}, which cannot be expressed as JSON; typed tools take and return records, variants, enums, flags, options, lists, tuples, results and primitives only`,
    );
  }
}

/** The WIT name a person reads for an export: `shapes.describe-shape` or `add-small`. */
export function exportLabel(e: Pick<TypedExport, "iface" | "name">): string {
  return e.iface ? `${e.iface}.${e.name}` : e.name;
}

/** The tool name of an export: its interface's short name, then the function, in snake case. */
export function toolNameOf(e: Pick<TypedExport, "iface" | "name">): string {
  const fn = jsonName(e.name.replace(/^\[(constructor|method|static)\]/, "").replace(/\./g, "-"));
  const iface = e.iface ? jsonName(e.iface.replace(/@.*$/, "").replace(/^.*[:/]/, "")) : undefined;
  return (iface ? `${iface}_${fn}` : fn).toLowerCase();
}

/** Every export as a tool; refuses (naming the function and type) what cannot be a tool. */
export function typedTools(exports: readonly TypedExport[]): TypedToolSchema[] {
  const seen = new Map<string, string>();
  return exports.map((e) => {
    const label = exportLabel(e);
    const tool = typedTool(e);
    if (!/^[a-z][a-z0-9_]{0,62}$/.test(tool.name)) {
      throw new PluginError("wit_export_unnamed", `function ${label}: its tool name ${tool.name} is not a valid tool name (lowercase letters, digits, '_', at most 63)`);
    }
    const other = seen.get(tool.name);
    if (other) throw new PluginError("wit_export_collision", `functions ${other} and ${label} both become tool ${tool.name}`);
    seen.set(tool.name, label);
    return tool;
  });
}

function typedTool(e: TypedExport): TypedToolSchema {
  const label = exportLabel(e);
  if (e.func.async) throw new UnmappableExport(label, "the function", "async func (component-model async is not served)");
  const budget = { nodes: 0 };
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const params = e.func.params.map((p) => ({ name: p.name, json: jsonName(p.name), type: p.type }));
  for (const p of params) {
    properties[p.json] = { ...schemaOf(p.type, { fn: label, where: `parameter ${p.name}`, budget }, 0), description: `WIT ${typeText(p.type)}` };
    if (p.type.kind !== "option") required.push(p.json);
  }
  // A result is checked too: a result that cannot be lifted to JSON refuses the function now, not at its first call.
  if (e.func.result) schemaOf(e.func.result, { fn: label, where: "its result", budget }, 0);
  const signature = `${e.name}(${e.func.params.map((p) => `${p.name}: ${typeText(p.type)}`).join(", ")})${e.func.result ? ` -> ${typeText(e.func.result)}` : ""}`;
  const description = e.docs?.trim() || `${e.iface ? `${e.iface}: ` : ""}${signature}`;
  const plan: TypedTool = { fn: jsName(e.name), params, ...(e.iface ? { iface: e.iface } : {}), ...(e.func.result ? { result: e.func.result } : {}) };
  return {
    name: toolNameOf(e),
    description: description.slice(0, 1000),
    inputSchema: { type: "object", properties, required, additionalProperties: false },
    plan,
  };
}

interface At {
  fn: string;
  where: string;
  budget: { nodes: number };
}

/** The JSON Schema (draft-07, as the runtime's validator reads it) of values of `type`. */
function schemaOf(type: WitType, at: At, depth: number): Record<string, unknown> {
  if (++at.budget.nodes > MAX_NODES) throw new UnmappableExport(at.fn, at.where, `a type that expands to more than ${MAX_NODES} schema nodes`);
  if (depth > MAX_DEPTH) throw new UnmappableExport(at.fn, at.where, `a type nested deeper than ${MAX_DEPTH}`);
  const inner = (t: WitType) => schemaOf(t, at, depth + 1);
  switch (type.kind) {
    case "unmappable":
      throw new UnmappableExport(at.fn, at.where, type.what);
    case "primitive":
      return primitiveSchema(type.name);
    case "record": {
      const properties: Record<string, unknown> = {};
      for (const f of type.fields) properties[jsonName(f.name)] = inner(f.type);
      const required = type.fields.filter((f) => f.type.kind !== "option").map((f) => jsonName(f.name));
      return { type: "object", properties, required, additionalProperties: false };
    }
    case "variant":
      return {
        oneOf: type.cases.map((c) => ({
          type: "object",
          properties: { tag: { const: c.name }, ...(c.type ? { val: inner(c.type) } : {}) },
          required: c.type ? ["tag", "val"] : ["tag"],
          additionalProperties: false,
        })),
      };
    case "enum":
      return { type: "string", enum: [...type.names] };
    case "flags":
      return { type: "array", items: { type: "string", enum: [...type.names] }, uniqueItems: true };
    case "list": {
      if (type.element.kind === "primitive" && type.element.name === "u8" && type.length === undefined) {
        return { anyOf: [{ type: "string", description: "base64" }, { type: "array", items: primitiveSchema("u8") }] };
      }
      const length = type.length === undefined ? {} : { minItems: type.length, maxItems: type.length };
      return { type: "array", items: inner(type.element), ...length };
    }
    case "tuple":
      return { type: "array", items: type.items.map(inner), minItems: type.items.length, maxItems: type.items.length, additionalItems: false };
    case "option":
      if (type.inner.kind === "option") {
        return { anyOf: [{ type: "object", properties: { some: inner(type.inner) }, required: ["some"], additionalProperties: false }, { type: "null" }] };
      }
      // The value's own schema first: a wrong value is reported against it, not as "must be null".
      return { anyOf: [inner(type.inner), { type: "null" }] };
    case "result": {
      const side = (key: "ok" | "err", t: WitType | undefined) => ({
        type: "object",
        properties: { [key]: t ? inner(t) : { type: "null" } },
        required: t ? [key] : [],
        additionalProperties: false,
        minProperties: 1,
      });
      return { oneOf: [side("ok", type.ok), side("err", type.err)] };
    }
  }
}

function primitiveSchema(name: string): Record<string, unknown> {
  const range = RANGES[name];
  if (range) return { type: "integer", minimum: range[0], maximum: range[1] };
  switch (name) {
    case "bool":
      return { type: "boolean" };
    case "u64":
      return { type: ["integer", "string"], minimum: 0, maximum: Number.MAX_SAFE_INTEGER, pattern: "^(0|[1-9][0-9]{0,19})$" };
    case "s64":
      return { type: ["integer", "string"], minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, pattern: "^(0|-?[1-9][0-9]{0,18})$" };
    case "f32":
    case "f64":
      return { type: "number" };
    case "char":
      return { type: "string", pattern: "^[\\s\\S]$" };
    default:
      return { type: "string" };
  }
}
