import { PluginError } from "../errors.js";

/** One section of a core module: its id and where its body lies in the module's bytes. */
export interface Section {
  readonly id: number;
  /** Offset of the section's id byte. */
  readonly start: number;
  readonly bodyStart: number;
  readonly bodyEnd: number;
}

/**
 * The sections of a WebAssembly core module, in order. `what` names the caller in errors
 * (`memory cap: truncated section`). Throws `invalid_module` for anything but a core module.
 */
export function sectionsOf(bytes: Uint8Array, what: string): Section[] {
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new PluginError("invalid_module", `${what}: not a WebAssembly core module`);
  }
  const sections: Section[] = [];
  let offset = 8;
  while (offset < bytes.length) {
    const [size, sizeLen] = readLeb(bytes, offset + 1, what);
    const bodyStart = offset + 1 + sizeLen;
    const bodyEnd = bodyStart + size;
    if (bodyEnd > bytes.length) throw new PluginError("invalid_module", `${what}: truncated section`);
    sections.push({ id: bytes[offset]!, start: offset, bodyStart, bodyEnd });
    offset = bodyEnd;
  }
  return sections;
}

/** An unsigned LEB128 at `at`: its value and its length in bytes (at most 5, a u32). */
export function readLeb(bytes: Uint8Array, at: number, what: string): [number, number] {
  let result = 0;
  let shift = 0;
  let length = 0;
  for (;;) {
    const byte = bytes[at + length];
    if (byte === undefined || length > 4) throw new PluginError("invalid_module", `${what}: bad LEB128`);
    result += (byte & 0x7f) * 2 ** shift;
    length++;
    if ((byte & 0x80) === 0) return [result, length];
    shift += 7;
  }
}

export function writeLeb(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  do {
    let byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
    if (rest !== 0) byte |= 0x80;
    out.push(byte);
  } while (rest !== 0);
  return out;
}

/** A section with `body`, as bytes ready to stand in a module. */
export function section(id: number, body: readonly number[] | Uint8Array): Uint8Array {
  const size = writeLeb(body.length);
  const out = new Uint8Array(1 + size.length + body.length);
  out[0] = id;
  out.set(size, 1);
  out.set(body, 1 + size.length);
  return out;
}

/** The parts joined into one module. Parts are views of the input where they can be: a componentize-js core module is ~12 MB. */
export function joinParts(parts: readonly Uint8Array[]): Uint8Array {
  const total = parts.reduce((n, part) => n + part.length, 0);
  const result = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    result.set(part, at);
    at += part.length;
  }
  return result;
}

/** A memory type as the memory and import sections write it: flags, minimum, optional maximum (pages). */
export interface MemoryType {
  readonly flags: number;
  readonly min: number;
  readonly max: number | undefined;
}

/** The memory types of a memory section's body. Only 32-bit memories (flags 0–3) are read. */
export function parseMemories(body: Uint8Array, what: string): MemoryType[] {
  const [count, countLen] = readLeb(body, 0, what);
  let at = countLen;
  const memories: MemoryType[] = [];
  for (let i = 0; i < count; i++) {
    const memory = readMemoryType(body, at, what);
    memories.push(memory.type);
    at = memory.end;
  }
  return memories;
}

function readMemoryType(bytes: Uint8Array, at: number, what: string): { type: MemoryType; end: number } {
  const flags = bytes[at++];
  if (flags === undefined || flags & ~0x03) throw new PluginError("invalid_module", `${what}: unsupported memory flags 0x${(flags ?? 0).toString(16)}`);
  const [min, minLen] = readLeb(bytes, at, what);
  at += minLen;
  let max: number | undefined;
  if (flags & 1) {
    const [m, maxLen] = readLeb(bytes, at, what);
    at += maxLen;
    max = m;
  }
  return { type: { flags, min, max }, end: at };
}

export function writeMemoryType(memory: MemoryType): number[] {
  return [memory.flags, ...writeLeb(memory.min), ...(memory.flags & 1 ? writeLeb(memory.max ?? 0) : [])];
}
