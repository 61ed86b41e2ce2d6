import { BinaryReader } from "./typed/binary.js";

/**
 * A component's imports, read from its binary's top-level import sections: the exact names
 * (versions included) a host must satisfy to instantiate it. Nested components and core
 * modules import only from their enclosing component, which the host never sees, so only the
 * outermost sections count. Nothing here reads printed WIT: a doc comment, a string or a type
 * name that spells an import is just bytes of another section.
 *
 * The layout is the Component Model binary format: the preamble, then sections (id, size,
 * content); section 10 holds `vec(import)`, each an import name and an extern descriptor.
 */
export interface ComponentImport {
  /** As in the binary, e.g. `clawhive:host/fs@0.1.1`, or a plain name for a function or type. */
  name: string;
  /** What is imported: `instance` (an interface), `func`, `type`, `value`, `component`, `module`. */
  kind: "module" | "func" | "value" | "type" | "component" | "instance";
}

const IMPORT_SECTION = 10;
const KINDS = ["module", "func", "value", "type", "component", "instance"] as const;

export function readComponentImports(bytes: Uint8Array, label: string): ComponentImport[] {
  const reader = new BinaryReader(bytes, label, 0, bytes.length, "imports");
  const preamble = reader.bytes(8);
  if (preamble[0] !== 0 || preamble[1] !== 0x61 || preamble[2] !== 0x73 || preamble[3] !== 0x6d || preamble[6] !== 1 || preamble[7] !== 0) {
    reader.fail("not a WebAssembly component (bad preamble)");
  }
  const imports: ComponentImport[] = [];
  while (!reader.done()) {
    const id = reader.byte();
    const size = reader.u32();
    const end = reader.offset + size;
    if (end > bytes.length) reader.fail(`section ${id} runs past the end of the file`);
    if (id === IMPORT_SECTION) {
      const count = reader.u32();
      for (let i = 0; i < count; i++) imports.push(readImport(reader));
      if (reader.offset !== end) reader.fail("the import section's size does not match its content");
    }
    reader.offset = end;
  }
  return imports;
}

function readImport(reader: BinaryReader): ComponentImport {
  const form = reader.byte();
  if (form !== 0x00 && form !== 0x01) reader.fail(`unknown import name form 0x${form.toString(16)}`);
  const name = reader.string();
  // A version suffix form (0x01) carries one more string: the version the name was resolved to.
  if (form === 0x01) reader.string();
  const tag = reader.byte();
  if (tag >= KINDS.length) reader.fail(`import ${name}: unknown extern descriptor 0x${tag.toString(16)}`);
  if (tag === 0x00) {
    if (reader.byte() !== 0x11) reader.fail(`import ${name}: malformed core module descriptor`);
    reader.u32();
  } else if (tag === 0x02 || tag === 0x03) {
    const bound = reader.byte();
    if (bound === 0x00 || (tag === 0x02 && bound === 0x01)) reader.s33();
    else if (!(tag === 0x03 && bound === 0x01)) reader.fail(`import ${name}: malformed bound`);
  } else {
    reader.u32();
  }
  return { name, kind: KINDS[tag]! };
}
