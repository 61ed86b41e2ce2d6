import { BinaryReader, forEach } from "./binary.js";
import { MAX_NESTING, nameType, readDefType, readValType } from "./def-types.js";
import type { Entity, Scope, TypeDef } from "./type-space.js";
import type { TypedExport } from "./wit-types.js";

/**
 * The typed functions a component exports, read from its own binary (the Component Model
 * binary format): the outer component's exports, each function's type resolved through the
 * type, alias, import, instance, canon and nested-component sections to its structure.
 *
 * Why an own reader: jco's WIT printer (`componentWit`) prints only the component's root
 * package, not the interfaces of other packages its exports use, and its TypeScript output
 * loses integer widths. Reading the binary gives the exact types and nothing printed is parsed.
 */
export interface ComponentTypes {
  exports: TypedExport[];
  /** Imported interfaces that carry only types (a world's `use`): the host provides nothing for them. */
  typeOnlyImports: string[];
  /** Whether the component exports the describe/call contract (`clawhive:plugin/tools`). */
  toolsContract: boolean;
}

const SORTS = ["core", "func", "value", "type", "component", "instance"] as const;
type Sort = (typeof SORTS)[number];
const TOOLS_CONTRACT = /^clawhive:plugin\/tools@/;

export function readComponentTypes(bytes: Uint8Array, label: string): ComponentTypes {
  const reader = new BinaryReader(bytes, label);
  const imports: Array<{ name: string; entity: Entity }> = [];
  const exports = readComponent(reader, undefined, 0, imports);
  const typed: TypedExport[] = [];
  let toolsContract = false;
  for (const [name, entity] of exports) {
    if (entity.sort === "func") typed.push({ name, func: entity.func });
    if (entity.sort !== "instance") continue;
    if (TOOLS_CONTRACT.test(name)) toolsContract = true;
    for (const [fn, member] of entity.exports) if (member.sort === "func") typed.push({ iface: name, name: fn, func: member.func });
  }
  // A type imported by name (a world's own `record`, `enum`, …: bound to its structure) and an
  // interface imported only for its types need nothing from the host; an imported resource does.
  const typeOnly = (entity: Entity) => (entity.sort === "type" ? entity.type.kind !== "resource" : false);
  const typeOnlyImports = imports
    .filter(({ entity }) => typeOnly(entity) || (entity.sort === "instance" && [...entity.exports.values()].every(typeOnly)))
    .map(({ name }) => name);
  return { exports: typed, typeOnlyImports, toolsContract };
}

/** A component's sections (preamble first); returns its exports by name. */
function readComponent(reader: BinaryReader, parent: Scope | undefined, depth: number, imports?: Array<{ name: string; entity: Entity }>): Map<string, Entity> {
  if (depth > MAX_NESTING) reader.fail(`components nested deeper than ${MAX_NESTING}`);
  const preamble = [0x00, 0x61, 0x73, 0x6d];
  for (const b of preamble) if (reader.byte() !== b) reader.fail("not a WebAssembly component (bad preamble)");
  reader.skip(2);
  if (reader.byte() !== 0x01 || reader.byte() !== 0x00) reader.fail("not a WebAssembly component (layer is not 1)");
  const scope: Scope = { types: [], funcs: [], instances: [], components: [], ...(parent ? { parent } : {}) };
  const exports = new Map<string, Entity>();
  while (!reader.done()) {
    const id = reader.byte();
    const section = reader.sub(reader.u32());
    switch (id) {
      case 4:
        scope.components.push({ sort: "component", exports: readComponent(section, scope, depth + 1) });
        break;
      case 5:
        forEach(section, () => scope.instances.push(readInstance(section, scope)));
        break;
      case 6:
        forEach(section, () => readAlias(section, scope, true));
        break;
      case 7:
        forEach(section, () => scope.types.push(readDefType(section, scope, depth)));
        break;
      case 8:
        forEach(section, () => readCanon(section, scope));
        break;
      case 10:
        forEach(section, () => {
          const name = section.externName();
          const entity = readExternDesc(section, scope);
          if (entity.sort === "type" && imports) nameType(entity.type, name);
          imports?.push({ name, entity });
        });
        break;
      case 11:
        forEach(section, () => readExport(section, scope, exports));
        break;
      default:
        // Custom, core module, core instance, core type, start and value sections hold nothing typed.
        if (id > 12) reader.fail(`unknown section ${id}`);
    }
    if (id >= 4 && id <= 11 && id !== 9 && !section.done()) section.fail(`section ${id}'s size does not match its content`);
  }
  return exports;
}

function readSort(reader: BinaryReader): Sort {
  const b = reader.byte();
  if (b === 0x00) {
    reader.byte();
    return "core";
  }
  if (b >= SORTS.length) reader.fail(`unknown sort 0x${b.toString(16)}`);
  return SORTS[b]!;
}

function lookup(reader: BinaryReader, scope: Scope, sort: Sort, index: number): Entity {
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

function addBySort(scope: Scope, sort: Sort, entity: Entity): void {
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

function readInstance(reader: BinaryReader, scope: Scope): Entity {
  const form = reader.byte();
  if (form === 0x00) {
    const component = lookup(reader, scope, "component", reader.u32());
    forEach(reader, () => {
      reader.string();
      readSort(reader);
      reader.u32();
    });
    return { sort: "instance", exports: component.sort === "component" ? component.exports : new Map() };
  }
  if (form !== 0x01) reader.fail(`unknown instance form 0x${form.toString(16)}`);
  const exports = new Map<string, Entity>();
  forEach(reader, () => {
    const name = reader.externName();
    const sort = readSort(reader);
    exports.set(name, lookup(reader, scope, sort, reader.u32()));
  });
  return { sort: "instance", exports };
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
  } else if (target === 0x01) {
    reader.u32();
    reader.string();
    entity = { sort: "other" };
  } else if (target === 0x02) {
    let outer: Scope | undefined = scope;
    for (let n = reader.u32(); n > 0; n--) outer = outer?.parent;
    if (!outer) reader.fail("an outer alias past the outermost component");
    entity = lookup(reader, outer, sort, reader.u32());
  } else {
    return reader.fail(`unknown alias target 0x${target.toString(16)}`);
  }
  if (inScope || sort === "type") addBySort(scope, sort, entity);
}

function readCanon(reader: BinaryReader, scope: Scope): void {
  const op = reader.byte();
  if (op === 0x00) {
    if (reader.byte() !== 0x00) reader.fail("malformed canon lift");
    reader.u32();
    readCanonOptions(reader);
    const type = scope.types[reader.u32()];
    if (type?.kind !== "func-type") reader.fail("canon lift of a type that is not a function type");
    scope.funcs.push({ sort: "func", func: type.func });
  } else if (op === 0x01) {
    if (reader.byte() !== 0x00) reader.fail("malformed canon lower");
    reader.u32();
    readCanonOptions(reader);
  } else if (op === 0x02 || op === 0x03 || op === 0x04 || op === 0x07) {
    reader.u32();
  } else {
    reader.fail(`canonical built-in 0x${op.toString(16)} is not one this runtime reads (component-model async is not served)`);
  }
}

function readCanonOptions(reader: BinaryReader): void {
  forEach(reader, () => {
    const option = reader.byte();
    if (option >= 0x03 && option <= 0x05) reader.u32();
    else if (option === 0x07 || option === 0x08) reader.u32();
    else if (option > 0x09) reader.fail(`unknown canonical option 0x${option.toString(16)}`);
  });
}

function readExport(reader: BinaryReader, scope: Scope, exports: Map<string, Entity>): void {
  const name = reader.externName();
  const sort = readSort(reader);
  let entity = lookup(reader, scope, sort, reader.u32());
  const ascribed = reader.byte();
  if (ascribed === 0x01) {
    const declared = readExternDesc(reader, scope, false);
    if (declared.sort === "func" || declared.sort === "instance") entity = declared;
  } else if (ascribed !== 0x00) {
    reader.fail("malformed export");
  }
  addBySort(scope, sort, entity);
  if (entity.sort === "type") nameType(entity.type, name);
  if (entity.sort !== "other") exports.set(name, entity);
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

