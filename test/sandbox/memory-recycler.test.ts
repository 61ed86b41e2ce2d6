/**
 * A worker's free memories (runtime/sandbox/memory-recycler.ts): a memory handed out again is
 * all zeros at its declared size, as a new one is; a memory that could not pass for new is
 * never handed out again. Each deny stands beside the control that passes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryRecycler } from "../../runtime/sandbox/memory-recycler.js";

const PAGE = 65536;
const LIMITS = { initial: 2, maximum: 16 };

function written(memory: WebAssembly.Memory): WebAssembly.Memory {
  const bytes = new Uint8Array(memory.buffer);
  bytes.fill(0xab, 0, 100);
  bytes[bytes.length - 1] = 7;
  return memory;
}

test("a memory given back is handed out again, every byte zero", () => {
  const recycler = new MemoryRecycler({ budgetBytes: 64 * PAGE });
  const first = written(recycler.take(LIMITS));
  recycler.release(first, LIMITS);
  const again = recycler.take(LIMITS);
  assert.equal(again, first);
  assert.equal(again.buffer.byteLength, LIMITS.initial * PAGE);
  assert.ok(new Uint8Array(again.buffer).every((b) => b === 0));
  assert.deepEqual(recycler.stats, { reused: 1, created: 1, dropped: 0, freeBytes: 0 });
});

test("control: a memory still in use is never handed out twice", () => {
  const recycler = new MemoryRecycler({ budgetBytes: 64 * PAGE });
  const a = recycler.take(LIMITS);
  const b = recycler.take(LIMITS);
  assert.notEqual(a, b);
});

const dropped: Array<{ name: string; give: (r: MemoryRecycler) => void; takeLimits: typeof LIMITS }> = [
  {
    name: "a memory the guest grew (memory.size would tell)",
    give: (r) => {
      const m = r.take(LIMITS);
      m.grow(1);
      r.release(m, LIMITS);
    },
    takeLimits: LIMITS,
  },
  {
    name: "a memory past the budget",
    give: (r) => {
      const held = [r.take(LIMITS), r.take(LIMITS)];
      for (const m of held) r.release(written(m), LIMITS);
    },
    takeLimits: LIMITS,
  },
];
for (const c of dropped) {
  test(`dropped, never handed out: ${c.name}`, () => {
    const recycler = new MemoryRecycler({ budgetBytes: 3 * PAGE });
    c.give(recycler);
    assert.ok(recycler.stats.dropped >= 1);
    assert.ok(recycler.stats.freeBytes <= 3 * PAGE);
    const next = recycler.take(c.takeLimits);
    assert.equal(next.buffer.byteLength, c.takeLimits.initial * PAGE);
    assert.ok(new Uint8Array(next.buffer).every((b) => b === 0));
  });
}

test("limits are matched exactly: a free memory of other limits is not handed out", () => {
  const recycler = new MemoryRecycler({ budgetBytes: 64 * PAGE });
  const m = recycler.take(LIMITS);
  recycler.release(m, LIMITS);
  const other = recycler.take({ initial: 2, maximum: 8 });
  assert.notEqual(other, m);
  assert.throws(() => other.grow(7), RangeError);
  // control: the same limits take it
  assert.equal(recycler.take(LIMITS), m);
});
