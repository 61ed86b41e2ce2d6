import { joinParts, parseMemories, readLeb, section, sectionsOf, writeLeb, writeMemoryType } from "./wasm-sections.js";
import type { Section } from "./wasm-sections.js";

/**
 * Where a module rewritten by `importMemory` takes its memory from. The name is not a WIT
 * interface and no component import is ever named so: the worker alone supplies it.
 */
export const RECYCLED_MEMORY_MODULE = "clawhive:sandbox/memory";
export const RECYCLED_MEMORY_NAME = "memory";

/** The limits (64 KiB pages) of a memory the worker supplies: exactly what the module had declared. */
export interface MemoryLimits {
  readonly initial: number;
  readonly maximum: number | undefined;
}

const WHAT = "memory import";
/** Section ids that stand after the import section (function … data, and tag). */
const AFTER_IMPORTS = new Set([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);

/**
 * Rewrites a core module that defines one memory (and imports none) so that it imports that
 * memory instead, with the same limits; `undefined` for any other module, left as it is.
 *
 * Why: a fresh memory costs its instance every page its data segments touch, faulted in and
 * zero-filled by the kernel, and the engine's ~10 MiB heap image made that most of a run's
 * instance creation. The worker instead hands the new instance a memory of a destroyed one,
 * zeroed and of the declared size (memory-recycler.ts): to the guest it is a fresh memory,
 * since instantiation writes the data segments into it as into a new one. The instance, its
 * tables, globals and glue are all new; only the pages are reused.
 */
export function importMemory(bytes: Uint8Array): { bytes: Uint8Array; limits: MemoryLimits } | undefined {
  const sections = sectionsOf(bytes, WHAT);
  const memorySection = sections.find((s) => s.id === 5);
  if (memorySection === undefined) return undefined;
  const memories = parseMemories(bytes.subarray(memorySection.bodyStart, memorySection.bodyEnd), WHAT);
  const memory = memories[0];
  // One memory, not shared (a shared memory is another thread's too).
  if (memories.length !== 1 || memory === undefined || memory.flags & 0x02) return undefined;
  const importSection = sections.find((s) => s.id === 2);
  const existing = importSection === undefined ? { count: 0, entries: new Uint8Array(0) } : readImports(bytes, importSection);
  if (existing === undefined) return undefined;
  const entry = [...name(RECYCLED_MEMORY_MODULE), ...name(RECYCLED_MEMORY_NAME), 0x02, ...writeMemoryType(memory)];
  const imports = section(2, joinParts([Uint8Array.from(writeLeb(existing.count + 1)), existing.entries, Uint8Array.from(entry)]));
  const out: Uint8Array[] = [bytes.subarray(0, 8)];
  let placed = false;
  for (const s of sections) {
    if (s.id === 2) {
      out.push(imports);
      placed = true;
      continue;
    }
    if (!placed && AFTER_IMPORTS.has(s.id)) {
      out.push(imports);
      placed = true;
    }
    if (s.id !== 5) out.push(bytes.subarray(s.start, s.bodyEnd));
  }
  return { bytes: joinParts(out), limits: { initial: memory.min, maximum: memory.flags & 1 ? memory.max : undefined } };
}

/**
 * The import section's entries as they stand, and their count; `undefined` where the module
 * already imports a memory (its defined one would not be index 0) or imports from our module.
 */
function readImports(bytes: Uint8Array, s: Section): { count: number; entries: Uint8Array } | undefined {
  const [count, countLen] = readLeb(bytes, s.bodyStart, WHAT);
  let at = s.bodyStart + countLen;
  for (let i = 0; i < count; i++) {
    const module = readName(bytes, at);
    const field = readName(bytes, module.end);
    if (module.text === RECYCLED_MEMORY_MODULE) return undefined;
    at = field.end;
    const kind = bytes[at++];
    switch (kind) {
      case 0x00: // function: type index
      case 0x04: // tag: attribute, type index
        if (kind === 0x04) at++;
        at += readLeb(bytes, at, WHAT)[1];
        break;
      case 0x01: { // table: reference type (funcref, externref), then 32-bit limits
        if (bytes[at] !== 0x70 && bytes[at] !== 0x6f) return undefined;
        at++;
        const flags = bytes[at++]!;
        if (flags & ~1) return undefined;
        at += readLeb(bytes, at, WHAT)[1];
        if (flags & 1) at += readLeb(bytes, at, WHAT)[1];
        break;
      }
      case 0x02: // memory
        return undefined;
      case 0x03: // global: a one-byte value type, mutability
        if (bytes[at] === 0x63 || bytes[at] === 0x64) return undefined;
        at += 2;
        break;
      default:
        return undefined; // a kind this reader does not know: leave the module alone
    }
  }
  if (at !== s.bodyEnd) return undefined;
  return { count, entries: bytes.subarray(s.bodyStart + countLen, s.bodyEnd) };
}

function readName(bytes: Uint8Array, at: number): { text: string; end: number } {
  const [length, lengthLen] = readLeb(bytes, at, WHAT);
  const start = at + lengthLen;
  return { text: Buffer.from(bytes.subarray(start, start + length)).toString("utf8"), end: start + length };
}

function name(text: string): number[] {
  const utf8 = Buffer.from(text, "utf8");
  return [...writeLeb(utf8.length), ...utf8];
}
