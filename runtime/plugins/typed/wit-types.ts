/**
 * WIT value types as read from a component binary, resolved to their structure (a type index
 * never survives reading). Plain data: structured-clonable, so a worker gets the same tree.
 */
export type Primitive = "bool" | "s8" | "u8" | "s16" | "u16" | "s32" | "u32" | "s64" | "u64" | "f32" | "f64" | "char" | "string";

export type WitType =
  | { kind: "primitive"; name: Primitive }
  | { kind: "record"; name?: string; fields: Array<{ name: string; type: WitType }> }
  | { kind: "variant"; name?: string; cases: Array<{ name: string; type?: WitType }> }
  | { kind: "list"; element: WitType; length?: number }
  | { kind: "tuple"; items: WitType[] }
  | { kind: "flags"; name?: string; names: string[] }
  | { kind: "enum"; name?: string; names: string[] }
  | { kind: "option"; inner: WitType }
  | { kind: "result"; ok?: WitType; err?: WitType }
  /** What JSON cannot carry: handles (`own`, `borrow`), resources, streams, futures, error contexts. */
  | { kind: "unmappable"; what: string };

export interface WitParam {
  name: string;
  type: WitType;
}

export interface WitFunction {
  params: WitParam[];
  result?: WitType;
  /** `async func` (component-model async): not served. */
  async?: boolean;
}

/** One exported function: at the top level (`iface` absent) or in an exported interface. */
export interface TypedExport {
  /** The interface's export name, e.g. `wasi:cli/run@0.2.0` or `shapes`. */
  iface?: string;
  /** The function's WIT name, e.g. `get-weather` or `[method]blob.read`. */
  name: string;
  func: WitFunction;
  docs?: string;
}

/** A human-readable spelling of a type, for messages (`list<option<u32>>`, `record point`). */
export function typeText(type: WitType): string {
  switch (type.kind) {
    case "primitive":
      return type.name;
    case "record":
    case "variant":
    case "flags":
    case "enum":
      return type.name ? `${type.kind} ${type.name}` : type.kind;
    case "list":
      return type.length === undefined ? `list<${typeText(type.element)}>` : `list<${typeText(type.element)}, ${type.length}>`;
    case "tuple":
      return `tuple<${type.items.map(typeText).join(", ")}>`;
    case "option":
      return `option<${typeText(type.inner)}>`;
    case "result":
      return `result<${type.ok ? typeText(type.ok) : "_"}, ${type.err ? typeText(type.err) : "_"}>`;
    case "unmappable":
      return type.what;
  }
}

/** The kebab-case WIT name as jco spells a JS identifier (lower camel case): `italic-text` → `italicText`, `HTTP-get` → `httpGet`. */
export function jsName(name: string): string {
  return name
    .split("-")
    .map((word, i) => (i === 0 ? word.toLowerCase() : word.charAt(0).toUpperCase() + word.slice(1).toLowerCase()))
    .join("");
}

/** The kebab-case WIT name as a JSON property: `italic-text` → `italic_text`. */
export function jsonName(name: string): string {
  return name.replace(/-/g, "_");
}
