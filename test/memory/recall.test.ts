import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { MemoryStore, OpenAiEmbedder } from "../../runtime/memory/index.js";
import { openStore } from "../../runtime/store/index.js";
import type { Store } from "../../runtime/store/index.js";
import { startFakeEmbeddings, type FakeEmbeddings } from "../helpers/fake-llm/embeddings.js";
import { loadCorpus, loadQueries, recallAt, type LabelledQuery } from "./corpus.js";

// Issue 10's bar: recall@5 ≥ 0.8 on the labelled set, for keyword and for vector search.
describe("memory search recall@5 on the labelled docs corpus", () => {
  let fake: FakeEmbeddings;
  let store: Store;
  let memory: MemoryStore;
  let queries: LabelledQuery[];
  before(async () => {
    fake = await startFakeEmbeddings({ dimensions: 256 });
    store = await openStore({ url: ":memory:" });
    memory = await MemoryStore.open(store, { embedder: new OpenAiEmbedder({ baseUrl: fake.baseUrl, model: "fake", dimensions: 256 }) });
    for (const doc of await loadCorpus()) await memory.write("docs", { text: doc.text, source: "person" }, { id: doc.id });
    queries = await loadQueries();
  });
  after(async () => {
    await store.close();
    await fake.close();
  });

  for (const mode of ["keyword", "vector", "hybrid"] as const) {
    it(`${mode} ≥ 0.8`, async () => {
      const { recall, missed } = await recallAt(queries, (q) => memory.search("docs", q, { k: 5, mode }));
      console.log(`recall@5 ${mode}: ${recall.toFixed(2)} (${queries.length} queries)${missed.length ? `; missed: ${missed.join(" | ")}` : ""}`);
      assert.ok(recall >= 0.8, `recall@5 ${mode} = ${recall}; missed: ${missed.join(" | ")}`);
    });
  }
});
