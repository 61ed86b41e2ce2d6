import { BinaryReader, forEach } from "./binary.js";
import { MAX_NESTING, readDefType } from "./def-types.js";
import { addBySort, lookup, noteUse, readAlias, readExternDesc, readSort } from "./index-spaces.js";
import type { Entity, Scope } from "./type-space.js";
import { nameType } from "./val-types.js";
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
  /**
   * For each imported interface (by import name), the functions the component takes from it
   * (`[method]descriptor.read`, `get-directories`, …), or `all` when it uses the instance whole
   * and so may call any of them. What it takes is what its code can call; the rest it cannot.
   */
  importedFunctions: ReadonlyMap<string, ReadonlySet<string> | "all">;
}

const TOOLS_CONTRACT = /^clawhive:plugin\/tools@/;

export function readComponentTypes(bytes: Uint8Array, label: string): ComponentTypes {
  const reader = new BinaryReader(bytes, label);
  const imports: Array<{ name: string; entity: Entity }> = [];
  const uses = new Map<Entity, Set<string> | "all">();
  const exports = readComponent(reader, undefined, 0, imports, uses);
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
  const importedFunctions = new Map<string, ReadonlySet<string> | "all">();
  for (const { name, entity } of imports) {
    if (entity.sort !== "instance") continue;
    const used = uses.get(entity) ?? new Set<string>();
    importedFunctions.set(name, used === "all" ? "all" : new Set([...used].filter((fn) => entity.exports.get(fn)?.sort === "func")));
  }
  return { exports: typed, typeOnlyImports, toolsContract, importedFunctions };
}

/** A component's sections (preamble first); returns its exports by name. */
function readComponent(reader: BinaryReader, parent: Scope | undefined, depth: number, imports?: Array<{ name: string; entity: Entity }>, uses?: Map<Entity, Set<string> | "all">): Map<string, Entity> {
  if (depth > MAX_NESTING) reader.fail(`components nested deeper than ${MAX_NESTING}`);
  const preamble = [0x00, 0x61, 0x73, 0x6d];
  for (const b of preamble) if (reader.byte() !== b) reader.fail("not a WebAssembly component (bad preamble)");
  reader.skip(2);
  if (reader.byte() !== 0x01 || reader.byte() !== 0x00) reader.fail("not a WebAssembly component (layer is not 1)");
  const scope: Scope = { types: [], funcs: [], instances: [], components: [], ...(parent ? { parent } : {}), ...(uses ? { uses } : {}) };
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
          if (entity.sort === "instance") uses?.set(entity, new Set());
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

function readInstance(reader: BinaryReader, scope: Scope): Entity {
  const form = reader.byte();
  if (form === 0x00) {
    const component = lookup(reader, scope, "component", reader.u32());
    forEach(reader, () => {
      reader.string();
      const sort = readSort(reader);
      const index = reader.u32();
      // An imported instance handed to a nested component: it may call any of its functions.
      if (sort === "instance") noteUse(scope, lookup(reader, scope, "instance", index), "all");
    });
    return { sort: "instance", exports: component.sort === "component" ? component.exports : new Map() };
  }
  if (form !== 0x01) reader.fail(`unknown instance form 0x${form.toString(16)}`);
  const exports = new Map<string, Entity>();
  forEach(reader, () => {
    const name = reader.externName();
    const sort = readSort(reader);
    const entity = lookup(reader, scope, sort, reader.u32());
    if (sort === "instance") noteUse(scope, entity, "all");
    exports.set(name, entity);
  });
  return { sort: "instance", exports };
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
  if (sort === "instance") noteUse(scope, entity, "all");
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

