import type { MemoryLimits } from "../plugins/memory-import.js";

const PAGE = 65536;

export interface MemoryRecyclerStats {
  /** Memories handed out that a destroyed instance had used. */
  readonly reused: number;
  /** Memories made new (none free of those limits). */
  readonly created: number;
  /** Memories an instance grew, or past the budget: left to the collector. */
  readonly dropped: number;
  /** Bytes held free now. */
  readonly freeBytes: number;
}

/**
 * A worker's free memories, for modules whose memory is imported (plugins/memory-import.ts).
 *
 * A memory comes back only from an instance that is gone (destroyed, or dropped after a trap),
 * and only at the size it was made: one the guest grew could not pass for a new memory
 * (`memory.size` would tell), so it is dropped. It is zeroed when it comes back, so no byte of
 * a run outlives it here, and a memory handed out again is all zeros at its declared size, as a
 * new one is: instantiation then writes the module's data segments into it. The reuse saves the
 * kernel's page faults and zero-fill of every page the data segments touch, and the collector's
 * work on memories nothing holds.
 *
 * Free memories hold their pages: at most `budgetBytes` of them are kept.
 */
export class MemoryRecycler {
  readonly #budgetBytes: number;
  /** Free memories by limits: the last given back is handed out first (its pages are warmest). */
  readonly #free = new Map<string, WebAssembly.Memory[]>();
  #freeBytes = 0;
  #reused = 0;
  #created = 0;
  #dropped = 0;

  constructor(options: { budgetBytes: number }) {
    this.#budgetBytes = options.budgetBytes;
  }

  get stats(): MemoryRecyclerStats {
    return { reused: this.#reused, created: this.#created, dropped: this.#dropped, freeBytes: this.#freeBytes };
  }

  /** A memory of exactly `limits`, all zeros: a free one, or a new one. */
  take(limits: MemoryLimits): WebAssembly.Memory {
    const memory = this.#free.get(keyOf(limits))?.pop();
    if (memory === undefined) {
      this.#created++;
      return new WebAssembly.Memory(limits.maximum === undefined ? { initial: limits.initial } : { initial: limits.initial, maximum: limits.maximum });
    }
    this.#freeBytes -= memory.buffer.byteLength;
    this.#reused++;
    return memory;
  }

  /**
   * Gives back the memory of an instance that is gone: zeroed and kept, or dropped when it was
   * grown or the free memories fill the budget (dropped before zeroing: zeroing a memory that is
   * not kept would only fault in its untouched pages).
   */
  release(memory: WebAssembly.Memory, limits: MemoryLimits): void {
    const bytes = limits.initial * PAGE;
    if (memory.buffer.byteLength !== bytes || this.#freeBytes + bytes > this.#budgetBytes) {
      this.#dropped++;
      return;
    }
    new Uint8Array(memory.buffer).fill(0);
    const key = keyOf(limits);
    let list = this.#free.get(key);
    if (list === undefined) this.#free.set(key, (list = []));
    list.push(memory);
    this.#freeBytes += bytes;
  }
}

function keyOf(limits: MemoryLimits): string {
  return `${limits.initial}:${limits.maximum ?? ""}`;
}
