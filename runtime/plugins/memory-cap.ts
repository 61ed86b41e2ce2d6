import { PluginError } from "../errors.js";
import { joinParts, parseMemories, section, sectionsOf, writeLeb, writeMemoryType } from "./wasm-sections.js";

const WHAT = "memory cap";

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
  // Sections are kept as views of the input: copying a 12 MB module through JS arrays cost half
  // a second per load.
  const out: Uint8Array[] = [bytes.subarray(0, 8)];
  for (const s of sectionsOf(bytes, WHAT)) {
    if (s.id === 5) out.push(section(5, rewriteMemorySection(bytes.subarray(s.bodyStart, s.bodyEnd), maxPages)));
    else out.push(bytes.subarray(s.start, s.bodyEnd));
  }
  return joinParts(out);
}

/** The declared minimum and maximum (pages) of each memory a core module defines. */
export function readMemoryLimits(bytes: Uint8Array): Array<{ min: number; max: number | undefined }> {
  const memories = sectionsOf(bytes, WHAT).find((s) => s.id === 5);
  if (memories === undefined) return [];
  return parseMemories(bytes.subarray(memories.bodyStart, memories.bodyEnd), WHAT).map(({ min, max }) => ({ min, max }));
}

function rewriteMemorySection(body: Uint8Array, maxPages: number): number[] {
  const memories = parseMemories(body, WHAT);
  const out = [...writeLeb(memories.length)];
  for (const memory of memories) {
    if (memory.min > maxPages) {
      throw new PluginError(
        "memory_cap",
        `memory cap: the module needs ${memory.min} pages at start, more than the cap of ${maxPages}`,
      );
    }
    const max = memory.max === undefined ? maxPages : Math.min(memory.max, maxPages);
    out.push(...writeMemoryType({ flags: memory.flags | 1, min: memory.min, max }));
  }
  return out;
}
