import { forEach, type BinaryReader } from "./binary.js";
import { readAlias, readExternDesc } from "./index-spaces.js";
import type { Entity, Scope, TypeDef } from "./type-space.js";
import { nameType, optionalValType, PRIMITIVES, readValType } from "./val-types.js";
import type { WitFunction, WitType } from "./wit-types.js";

/** Type definitions of the Component Model binary format: value types, functions, instance and component types. */
/** Deepest nesting of instance and component types read. */
export const MAX_NESTING = 16;

export function readDefType(reader: BinaryReader, scope: Scope, depth: number): TypeDef {
  const b = reader.peek();
  if (PRIMITIVES[b] || b === 0x64) return readValType(reader, scope);
  reader.byte();
  const labelled = () => {
    const fields: Array<{ name: string; type: WitType }> = [];
    forEach(reader, () => fields.push({ name: reader.string(), type: readValType(reader, scope) }));
    return fields;
  };
  const names = () => {
    const list: string[] = [];
    forEach(reader, () => list.push(reader.string()));
    return list;
  };
  switch (b) {
    case 0x72:
      return { kind: "record", fields: labelled() };
    case 0x71: {
      const cases: Array<{ name: string; type?: WitType }> = [];
      forEach(reader, () => {
        const name = reader.string();
        const type = optionalValType(reader, scope);
        if (reader.byte() !== 0x00) reader.fail("a variant case that refines another (not supported)");
        cases.push(type ? { name, type } : { name });
      });
      return { kind: "variant", cases };
    }
    case 0x70:
      return { kind: "list", element: readValType(reader, scope) };
    case 0x67: {
      const element = readValType(reader, scope);
      return { kind: "list", element, length: reader.u32() };
    }
    case 0x6f: {
      const items: WitType[] = [];
      forEach(reader, () => items.push(readValType(reader, scope)));
      return { kind: "tuple", items };
    }
    case 0x6e:
      return { kind: "flags", names: names() };
    case 0x6d:
      return { kind: "enum", names: names() };
    case 0x6b:
      return { kind: "option", inner: readValType(reader, scope) };
    case 0x6a: {
      const ok = optionalValType(reader, scope);
      const err = optionalValType(reader, scope);
      return { kind: "result", ...(ok ? { ok } : {}), ...(err ? { err } : {}) };
    }
    case 0x69:
    case 0x68: {
      const target = scope.types[reader.u32()];
      const name = target?.kind === "resource" && target.name ? target.name : "resource";
      return { kind: "unmappable", what: `${b === 0x69 ? "own" : "borrow"}<${name}> (a resource handle)` };
    }
    case 0x66:
    case 0x65:
      optionalValType(reader, scope);
      return { kind: "unmappable", what: b === 0x66 ? "stream" : "future" };
    case 0x40:
    case 0x43:
      return { kind: "func-type", func: readFuncType(reader, scope, b === 0x43) };
    case 0x41:
    case 0x42:
      return readDeclarations(reader, scope, b === 0x41, depth);
    case 0x3f:
    case 0x3e:
      if (reader.byte() !== 0x7f) reader.fail("a resource whose representation is not i32");
      if (reader.byte() === 0x01) reader.u32();
      if (b === 0x3e && reader.byte() === 0x01) reader.u32();
      return { kind: "resource" };
    default:
      return reader.fail(`unknown type form 0x${b.toString(16)}`);
  }
}

function readFuncType(reader: BinaryReader, scope: Scope, isAsync: boolean): WitFunction {
  const params: Array<{ name: string; type: WitType }> = [];
  forEach(reader, () => params.push({ name: reader.string(), type: readValType(reader, scope) }));
  const form = reader.byte();
  let result: WitType | undefined;
  if (form === 0x00) result = readValType(reader, scope);
  else if (form === 0x01) {
    const named: WitType[] = [];
    forEach(reader, () => {
      reader.string();
      named.push(readValType(reader, scope));
    });
    if (named.length === 1) result = named[0];
    else if (named.length > 1) result = { kind: "unmappable", what: "several named results" };
  } else reader.fail("malformed function results");
  return { params, ...(result ? { result } : {}), ...(isAsync ? { async: true } : {}) };
}

/** An instance type's or component type's declarations; their exports (imports of a component type are only read past). */
function readDeclarations(reader: BinaryReader, parent: Scope, component: boolean, depth: number): TypeDef {
  if (depth > MAX_NESTING) reader.fail(`types nested deeper than ${MAX_NESTING}`);
  const scope: Scope = { types: [], funcs: [], instances: [], components: [], parent };
  const exports = new Map<string, Entity>();
  forEach(reader, () => {
    const tag = reader.byte();
    if (tag === 0x00) reader.fail("core types inside a component's instance types are not read");
    else if (tag === 0x01) scope.types.push(readDefType(reader, scope, depth + 1));
    else if (tag === 0x02) readAlias(reader, scope, false);
    else if (tag === 0x03 && component) {
      reader.externName();
      readExternDesc(reader, scope);
    } else if (tag === 0x04) {
      const name = reader.externName();
      const entity = readExternDesc(reader, scope);
      if (entity.sort === "type") nameType(entity.type, name);
      exports.set(name, entity);
    } else reader.fail(`unknown declaration 0x${tag.toString(16)}`);
  });
  return component ? { kind: "component-type", exports } : { kind: "instance-type", exports };
}

