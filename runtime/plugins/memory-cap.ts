import { PluginError } from "../errors.js";

/**
 * Sets the maximum of every memory a core module defines to `maxPages` (64 KiB each).
 *
 * Worker `resourceLimits` do not reach wasm memory, so the only hard cap is the module's own
 * declared maximum: `memory.grow` past it fails inside the guest. The rewrite is deterministic,
 * so the compiled result is a function of the hashed bytes and the cap.
 */
export function capMemory(bytes: Uint8Array, maxPages: number): Uint8Array {
  if (!Number.isInteger(maxPages) || maxPages < 1 || maxPages > 65536) {
    throw new PluginError("invalid_memory_cap", `memory cap: expected 1..65536 pages, got ${maxPages}`);
  }
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new PluginError("invalid_module", "memory cap: not a WebAssembly core module");
  }
  // Sections are kept as views of the input: a componentize-js core module is ~12 MB, and
  // copying it through JS arrays cost half a second per load.
  const out: Uint8Array[] = [bytes.subarray(0, 8)];
  let offset = 8;
  while (offset < bytes.length) {
    const id = bytes[offset]!;
    const sizeAt = offset + 1;
    const [size, sizeLen] = readLeb(bytes, sizeAt);
    const bodyStart = sizeAt + sizeLen;
    const bodyEnd = bodyStart + size;
    if (bodyEnd > bytes.length) throw new PluginError("invalid_module", "memory cap: truncated section");
    if (id === 5) {
      const body = rewriteMemorySection(bytes.subarray(bodyStart, bodyEnd), maxPages);
      out.push(Uint8Array.from([5, ...writeLeb(body.length), ...body]));
    } else {
      out.push(bytes.subarray(offset, bodyEnd));
    }
    offset = bodyEnd;
  }
  const total = out.reduce((n, part) => n + part.length, 0);
  const result = new Uint8Array(total);
  let at = 0;
  for (const part of out) {
    result.set(part, at);
    at += part.length;
  }
  return result;
}

/** The declared minimum and maximum (pages) of each memory a core module defines. */
export function readMemoryLimits(bytes: Uint8Array): Array<{ min: number; max: number | undefined }> {
  let offset = 8;
  while (offset < bytes.length) {
    const id = bytes[offset]!;
    const [size, sizeLen] = readLeb(bytes, offset + 1);
    const bodyStart = offset + 1 + sizeLen;
    if (id === 5) return parseMemories(bytes.subarray(bodyStart, bodyStart + size)).map(({ min, max }) => ({ min, max }));
    offset = bodyStart + size;
  }
  return [];
}

function parseMemories(body: Uint8Array): Array<{ flags: number; min: number; max: number | undefined }> {
  const [count, countLen] = readLeb(body, 0);
  let at = countLen;
  const memories = [];
  for (let i = 0; i < count; i++) {
    const flags = body[at++]!;
    if (flags & ~0x03) throw new PluginError("invalid_module", `memory cap: unsupported memory flags 0x${flags.toString(16)}`);
    const [min, minLen] = readLeb(body, at);
    at += minLen;
    let max: number | undefined;
    if (flags & 1) {
      const [m, maxLen] = readLeb(body, at);
      at += maxLen;
      max = m;
    }
    memories.push({ flags, min, max });
  }
  return memories;
}

function rewriteMemorySection(body: Uint8Array, maxPages: number): number[] {
  const memories = parseMemories(body);
  const out = [...writeLeb(memories.length)];
  for (const memory of memories) {
    if (memory.min > maxPages) {
      throw new PluginError(
        "memory_cap",
        `memory cap: the module needs ${memory.min} pages at start, more than the cap of ${maxPages}`,
      );
    }
    const max = memory.max === undefined ? maxPages : Math.min(memory.max, maxPages);
    out.push(memory.flags | 1, ...writeLeb(memory.min), ...writeLeb(max));
  }
  return out;
}

function readLeb(bytes: Uint8Array, at: number): [number, number] {
  let result = 0;
  let shift = 0;
  let length = 0;
  for (;;) {
    const byte = bytes[at + length];
    if (byte === undefined || length > 4) throw new PluginError("invalid_module", "memory cap: bad LEB128");
    result += (byte & 0x7f) * 2 ** shift;
    length++;
    if ((byte & 0x80) === 0) return [result, length];
    shift += 7;
  }
}

function writeLeb(value: number): number[] {
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
