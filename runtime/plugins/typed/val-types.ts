import { type BinaryReader } from "./binary.js";
import type { Scope, TypeDef } from "./type-space.js";
import type { Primitive, WitType } from "./wit-types.js";

/**
 * Value types of the Component Model binary format, and the names types keep: the leaf every
 * other part of the reader uses (a value type refers only to types already read).
 */
export const PRIMITIVES: Readonly<Record<number, Primitive>> = {
  0x7f: "bool", 0x7e: "s8", 0x7d: "u8", 0x7c: "s16", 0x7b: "u16", 0x7a: "s32", 0x79: "u32",
  0x78: "s64", 0x77: "u64", 0x76: "f32", 0x75: "f64", 0x74: "char", 0x73: "string",
};

export function readValType(reader: BinaryReader, scope: Scope): WitType {
  const b = reader.peek();
  if ((b & 0x80) === 0 && b >= 0x40) {
    reader.byte();
    const primitive = PRIMITIVES[b];
    if (primitive) return { kind: "primitive", name: primitive };
    if (b === 0x64) return { kind: "unmappable", what: "error-context" };
    return reader.fail(`unknown value type 0x${b.toString(16)}`);
  }
  const type = scope.types[reader.u32()] ?? reader.fail("a value of an undefined type");
  if (type.kind === "resource") return { kind: "unmappable", what: "a resource" };
  if (type.kind === "func-type" || type.kind === "instance-type" || type.kind === "component-type") return reader.fail("a value of a non-value type");
  return type;
}

export function optionalValType(reader: BinaryReader, scope: Scope): WitType | undefined {
  const present = reader.byte();
  if (present === 0x00) return undefined;
  if (present !== 0x01) reader.fail("malformed optional type");
  return readValType(reader, scope);
}

/** A record, variant, enum, flags or resource type exported under a name keeps it, for descriptions. */
export function nameType(type: TypeDef, name: string): void {
  const named = type.kind === "record" || type.kind === "variant" || type.kind === "enum" || type.kind === "flags" || type.kind === "resource";
  if (named && type.name === undefined && !name.startsWith("import-type-")) type.name = name;
}
