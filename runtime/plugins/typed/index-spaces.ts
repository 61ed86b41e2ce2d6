import type { BinaryReader } from "./binary.js";
import type { Entity, Scope, TypeDef } from "./type-space.js";
import { readValType } from "./val-types.js";

/**
 * A component's index spaces (types, functions, instances, components): what an alias, an
 * import or an export adds to them and how an index is looked up. Used both by the component
 * reader and by instance and component type declarations, which have index spaces of their own.
 */
const SORTS = ["core", "func", "value", "type", "component", "instance"] as const;
export type Sort = (typeof SORTS)[number];

export function readSort(reader: BinaryReader): Sort {
  const b = reader.byte();
  if (b === 0x00) {
    reader.byte();
    return "core";
  }
  if (b >= SORTS.length) reader.fail(`unknown sort 0x${b.toString(16)}`);
  return SORTS[b]!;
}

export function lookup(reader: BinaryReader, scope: Scope, sort: Sort, index: number): Entity {
  if (sort === "core" || sort === "value") return { sort: "other" };
  const space = sort === "func" ? scope.funcs : sort === "instance" ? scope.instances : sort === "component" ? scope.components : undefined;
  if (sort === "type") {
    const type = scope.types[index];
    if (!type) reader.fail(`type ${index} is not defined`);
    return { sort: "type", type };
  }
  const entity = space![index];
  if (!entity) reader.fail(`${sort} ${index} is not defined`);
  return entity;
}

function add(scope: Scope, entity: Entity): void {
  if (entity.sort === "func") scope.funcs.push(entity);
  else if (entity.sort === "type") scope.types.push(entity.type);
  else if (entity.sort === "instance") scope.instances.push(entity);
  else if (entity.sort === "component") scope.components.push(entity);
}

export function addBySort(scope: Scope, sort: Sort, entity: Entity): void {
  if (sort === "core" || sort === "value") return;
  // An entity the reader does not follow still takes its index.
  add(scope, entity.sort === "other" ? placeholder(sort) : entity);
}

function placeholder(sort: Sort): Entity {
  if (sort === "func") return { sort: "func", func: { params: [], result: { kind: "unmappable", what: "an unknown function" } } };
  if (sort === "type") return { sort: "type", type: { kind: "unmappable", what: "an unknown type" } };
  if (sort === "instance") return { sort: "instance", exports: new Map() };
  return { sort: "component", exports: new Map() };
}

/** An alias; in a type declaration (`inScope` false) it adds only to the type space it can reach. */
export function readAlias(reader: BinaryReader, scope: Scope, inScope: boolean): void {
  const sort = readSort(reader);
  const target = reader.byte();
  let entity: Entity;
  if (target === 0x00) {
    const instance = lookup(reader, scope, "instance", reader.u32());
    const name = reader.string();
    entity = (instance.sort === "instance" ? instance.exports.get(name) : undefined) ?? reader.fail(`instance has no export ${name}`);
    noteUse(scope, instance, name);
  } else if (target === 0x01) {
    reader.u32();
    reader.string();
    entity = { sort: "other" };
  } else if (target === 0x02) {
    let outer: Scope | undefined = scope;
    for (let n = reader.u32(); n > 0; n--) outer = outer?.parent;
    if (!outer) reader.fail("an outer alias past the outermost component");
    entity = lookup(reader, outer, sort, reader.u32());
    if (sort === "instance") noteUse(outer, entity, "all");
  } else {
    return reader.fail(`unknown alias target 0x${target.toString(16)}`);
  }
  if (inScope || sort === "type") addBySort(scope, sort, entity);
}

/** Records that `name` (or `all`) of an imported instance is used, on the scope that tracks uses. */
export function noteUse(scope: Scope, instance: Entity, name: string | "all"): void {
  let root: Scope | undefined = scope;
  while (root && !root.uses) root = root.parent;
  const seen = root?.uses?.get(instance);
  if (seen === undefined || seen === "all") return;
  if (name === "all") root!.uses!.set(instance, "all");
  else seen.add(name);
}

/** An extern descriptor; when `adds`, a type it declares takes the next type index of `scope`. */
export function readExternDesc(reader: BinaryReader, scope: Scope, adds = true): Entity {
  const tag = reader.byte();
  switch (tag) {
    case 0x00:
      if (reader.byte() !== 0x11) reader.fail("malformed core module descriptor");
      reader.u32();
      return { sort: "other" };
    case 0x01: {
      const type = scope.types[reader.u32()];
      if (type?.kind !== "func-type") reader.fail("a function described by a type that is not a function type");
      const entity: Entity = { sort: "func", func: type.func };
      if (adds) scope.funcs.push(entity);
      return entity;
    }
    case 0x02:
      if (reader.byte() === 0x00) reader.u32();
      else readValType(reader, scope);
      return { sort: "other" };
    case 0x03: {
      const bound = reader.byte();
      let type: TypeDef;
      if (bound === 0x00) type = scope.types[reader.u32()] ?? reader.fail("a type bound to an undefined type");
      else if (bound === 0x01) type = { kind: "resource" };
      else return reader.fail("malformed type bound");
      if (adds) scope.types.push(type);
      return { sort: "type", type };
    }
    case 0x04:
    case 0x05: {
      const type = scope.types[reader.u32()];
      const want = tag === 0x04 ? "component-type" : "instance-type";
      if (type?.kind !== want) reader.fail(`an ${tag === 0x04 ? "component" : "instance"} described by a type that is not one`);
      const entity: Entity = tag === 0x04 ? { sort: "component", exports: (type as { exports: Map<string, Entity> }).exports } : { sort: "instance", exports: (type as { exports: Map<string, Entity> }).exports };
      if (adds) add(scope, entity);
      return entity;
    }
    default:
      return reader.fail(`unknown extern descriptor 0x${tag.toString(16)}`);
  }
}
