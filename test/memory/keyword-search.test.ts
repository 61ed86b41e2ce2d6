import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { MemoryStore } from "../../runtime/memory/index.js";
import { chooseTerms, selectiveTerms } from "../../runtime/memory/keyword-search.js";
import { openStore } from "../../runtime/store/index.js";
import type { Store } from "../../runtime/store/index.js";

const clock = { now: () => 1_700_000_000_000 };

/** The choice exact counts make (what `selectiveTerms` did before it capped its counts). */
async function exactChoice(store: Store, terms: readonly string[], budget: number): Promise<string[]> {
  const counted: { term: string; rows: number }[] = [];
  for (const term of terms) {
    counted.push({ term, rows: Number((await store.execute({ sql: "SELECT count(*) AS n FROM memory_fts WHERE memory_fts MATCH ?", args: [term] })).rows[0]!.n) });
  }
  return chooseTerms(counted, budget);
}

describe("keyword search: which words are scored", () => {
  let store: Store;
  before(async () => {
    store = await openStore({ url: ":memory:", clock });
    const memory = await MemoryStore.open(store, { clock });
    // Word wN is in N episodes: counts on both sides of every cap for small budgets.
    const counts = { w1: 1, w2: 2, w3: 3, w5: 5, w9: 9, w14: 14, w40: 40, w70: 70 };
    const items = Array.from({ length: 70 }, (_, i) => ({
      episode: { text: Object.entries(counts).filter(([, n]) => i < n).map(([word]) => word).join(" "), source: "person" as const },
    }));
    await memory.writeMany("a", items);
  });
  after(() => store.close());

  const cases: { terms: string[]; budget: number }[] = [
    { terms: ["w2", "w1", "w3"], budget: 5 }, // all under the first cap
    { terms: ["w9", "w5"], budget: 1 }, // all over the first cap (2), the rarest under the second (8)
    { terms: ["w14", "w40"], budget: 1 }, // over the second cap (8), under the third (32)
    { terms: ["w70", "w40"], budget: 1 }, // every term past the capped passes: counted to the end
    { terms: ["w70", "w40", "w14", "w5", "w3"], budget: 20 },
    { terms: ["nowhere", "w9", "w5"], budget: 4 }, // a word in no row
    { terms: ["nowhere", "elsewhere"], budget: 4 },
    { terms: ["w70"], budget: 1 },
  ];
  for (const { terms, budget } of cases) {
    it(`${terms.join(" ")} within ${budget} rows: the choice exact counts make`, async () => {
      assert.deepEqual(await selectiveTerms(store, terms.map((t) => `"${t}"`), budget), (await exactChoice(store, terms.map((t) => `"${t}"`), budget)));
    });
  }

  it("the rarest word is kept even when it alone is over the budget (control: a roomy budget keeps both)", async () => {
    assert.deepEqual(await selectiveTerms(store, ['"w70"', '"w40"'], 1), ['"w40"']);
    assert.deepEqual(await selectiveTerms(store, ['"w70"', '"w40"'], 200), ['"w40"', '"w70"']);
  });
});

describe("keyword search: the agent's scope", () => {
  it("finds an agent's own chunks however many better-scored chunks other agents have", async () => {
    const store = await openStore({ url: ":memory:", clock });
    try {
      const memory = await MemoryStore.open(store, { clock });
      // Another agent's chunks score higher (the word in the heading, in a short text): the first
      // 64 candidates, then the first 256, then all 4096 are theirs for the larger crowds.
      for (const crowd of [0, 100, 5000]) {
        await store.execute("DELETE FROM memory_fts");
        await store.execute("DELETE FROM memory_chunks");
        await store.execute("DELETE FROM memory_episodes");
        for (let i = 0; i < crowd; i += 500) {
          const size = Math.min(500, crowd - i);
          await memory.writeMany("other", Array.from({ length: size }, (_, j) => ({ episode: { text: `# zebra\nzebra ${i + j}`, source: "person" as const } })));
        }
        await memory.write("mine", { text: "a long note that names the zebra once among many other words about the zoo", source: "person" }, { id: "m1" });
        await memory.write("mine", { text: "another long note, the zebra again, among words about the savanna and the grass", source: "person" }, { id: "m2" });
        const mine = await memory.search("mine", "zebra", { k: 5 });
        assert.deepEqual(mine.map((h) => h.episodeId).sort(), ["m1", "m2"], `beside ${crowd} of another agent's`);
        const theirs = await memory.search("other", "zebra", { k: 5 });
        assert.equal(theirs.length, Math.min(5, crowd), `control: the other agent's own, beside ${crowd}`);
        assert.ok(theirs.every((h) => h.partition === "other"));
      }
    } finally {
      await store.close();
    }
  });

  it("ranks the agent's hits by score, best first", async () => {
    const store = await openStore({ url: ":memory:", clock });
    try {
      const memory = await MemoryStore.open(store, { clock });
      await memory.write("mine", { text: "# zebra\nzebra zebra", source: "person" }, { id: "best" });
      await memory.write("mine", { text: "zebra among a great many other words about the zoo and the animals in it", source: "person" }, { id: "worst" });
      await memory.write("mine", { text: "zebra and the zoo", source: "person" }, { id: "middle" });
      const hits = await memory.search("mine", "zebra", { k: 3 });
      assert.deepEqual(hits.map((h) => h.episodeId), ["best", "middle", "worst"]);
      assert.ok(hits[0]!.score > hits[1]!.score && hits[1]!.score > hits[2]!.score);
    } finally {
      await store.close();
    }
  });
});
