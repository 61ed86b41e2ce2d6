/**
 * The typed import list of a core module, read from its binary. Node 20's
 * `WebAssembly.Module.imports()` gives only module, name and kind (type reflection is behind
 * `--experimental-wasm-type-reflection`), and a stub must match the declared type exactly: an
 * i64 result wants a BigInt, a memory its limits and `shared` flag, a table its element type.
 * Only the type and import sections are read (https://webassembly.github.io/spec/core/binary/).
 */

/** A value type by its JS API name; `other` stands for types JS cannot make (GC references). */
export type ValueType = "i32" | "i64" | "f32" | "f64" | "v128" | "anyfunc" | "externref" | `other(0x${string})`;

export interface Limits {
  readonly min: number;
  readonly max: number | undefined;
  readonly shared: boolean;
  readonly is64: boolean;
}

export type ImportType =
  | { readonly kind: "function"; readonly params: readonly ValueType[]; readonly results: readonly ValueType[] }
  | { readonly kind: "table"; readonly element: ValueType; readonly limits: Limits }
  | { readonly kind: "memory"; readonly limits: Limits }
  | { readonly kind: "global"; readonly value: ValueType; readonly mutable: boolean }
  | { readonly kind: "tag"; readonly params: readonly ValueType[] };

export type TypedImport = { readonly module: string; readonly name: string } & { readonly type: ImportType };

interface FuncType {
  readonly params: readonly ValueType[];
  readonly results: readonly ValueType[];
}

const SECTION_TYPE = 1;
const SECTION_IMPORT = 2;

/** Throws `Error` on bytes that are not a core module or use a type encoding not handled here. */
export function readImportTypes(bytes: Uint8Array): TypedImport[] {
  const reader = new Reader(bytes);
  if (reader.u32le() !== 0x6d736100 || reader.u32le() !== 1) {
    throw new Error("wasm imports: not a core module (bad magic or version)");
  }
  let types: FuncType[] = [];
  while (!reader.done()) {
    const id = reader.byte();
    const size = reader.leb();
    const end = reader.offset + size;
    if (id === SECTION_TYPE) types = readTypeSection(reader);
    if (id === SECTION_IMPORT) return readImportSection(reader, types);
    if (id > SECTION_IMPORT) return []; // sections are ordered: no import section
    reader.offset = end;
  }
  return [];
}

function readTypeSection(reader: Reader): FuncType[] {
  const types: FuncType[] = [];
  for (let count = reader.leb(); count > 0; count--) {
    const form = reader.byte();
    if (form !== 0x60) {
      throw new Error(`wasm imports: type form 0x${form.toString(16)} (GC types) is not supported`);
    }
    types.push({ params: readValueTypes(reader), results: readValueTypes(reader) });
  }
  return types;
}

function readImportSection(reader: Reader, types: readonly FuncType[]): TypedImport[] {
  const imports: TypedImport[] = [];
  for (let count = reader.leb(); count > 0; count--) {
    const module = reader.name();
    const name = reader.name();
    imports.push({ module, name, type: readImportType(reader, types) });
  }
  return imports;
}

function readImportType(reader: Reader, types: readonly FuncType[]): ImportType {
  const kind = reader.byte();
  switch (kind) {
    case 0x00:
      return { kind: "function", ...funcType(types, reader.leb()) };
    case 0x01: {
      const element = readValueType(reader);
      return { kind: "table", element, limits: readLimits(reader) };
    }
    case 0x02:
      return { kind: "memory", limits: readLimits(reader) };
    case 0x03: {
      const value = readValueType(reader);
      return { kind: "global", value, mutable: reader.byte() === 1 };
    }
    case 0x04: {
      reader.byte(); // attribute: 0 = exception
      return { kind: "tag", params: funcType(types, reader.leb()).params };
    }
    default:
      throw new Error(`wasm imports: unknown import kind 0x${kind.toString(16)}`);
  }
}

function funcType(types: readonly FuncType[], index: number): FuncType {
  const type = types[index];
  if (type === undefined) throw new Error(`wasm imports: type index out of range: ${index}`);
  return type;
}

function readLimits(reader: Reader): Limits {
  const flags = reader.byte();
  const min = reader.leb();
  const max = (flags & 1) !== 0 ? reader.leb() : undefined;
  return { min, max, shared: (flags & 2) !== 0, is64: (flags & 4) !== 0 };
}

function readValueTypes(reader: Reader): ValueType[] {
  const values: ValueType[] = [];
  for (let count = reader.leb(); count > 0; count--) values.push(readValueType(reader));
  return values;
}

const SIMPLE_TYPES: ReadonlyMap<number, ValueType> = new Map<number, ValueType>([
  [0x7f, "i32"],
  [0x7e, "i64"],
  [0x7d, "f32"],
  [0x7c, "f64"],
  [0x7b, "v128"],
  [0x70, "anyfunc"],
  [0x6f, "externref"],
]);

function readValueType(reader: Reader): ValueType {
  const code = reader.byte();
  const simple = SIMPLE_TYPES.get(code);
  if (simple !== undefined) return simple;
  // (ref ht) / (ref null ht): skip the heap type so the rest of the section still parses.
  if (code === 0x64 || code === 0x63) reader.leb();
  return `other(0x${code.toString(16)})`;
}

class Reader {
  offset = 0;
  readonly #bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  done(): boolean {
    return this.offset >= this.#bytes.length;
  }

  byte(): number {
    const value = this.#bytes[this.offset++];
    if (value === undefined) throw new Error("wasm imports: unexpected end of module");
    return value;
  }

  u32le(): number {
    return (this.byte() | (this.byte() << 8) | (this.byte() << 16) | (this.byte() << 24)) >>> 0;
  }

  /** Unsigned (or, for heap types, signed-33) LEB128; values past 2^53 lose precision, never parse. */
  leb(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const value = this.byte();
      result += (value & 0x7f) * scale;
      if ((value & 0x80) === 0) return result;
      scale *= 128;
    }
    throw new Error("wasm imports: LEB128 longer than 10 bytes");
  }

  name(): string {
    const length = this.leb();
    const start = this.offset;
    this.offset += length;
    if (this.offset > this.#bytes.length) throw new Error("wasm imports: unexpected end of module");
    return new TextDecoder("utf-8", { fatal: true }).decode(this.#bytes.subarray(start, this.offset));
  }
}
