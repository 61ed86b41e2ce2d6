/**
 * Memory search figures (issue 10) on an embedded file store holding 10,000 episodes of one
 * agent, generated deterministically from the labelled docs corpus (test/fixtures/memory):
 * episode i is corpus section i mod S (about 200 copies of each) plus a note number and a seeded
 * sentence of that section's own words, so copies differ while staying on their topic.
 * - memory_insert: episodes written per second (writeMany, 100 a transaction), chunking, the
 *   FTS rows and the vectors (fake embeddings over loopback, 256 dimensions) included;
 * - memory_search_keyword: one FTS5 bm25 search, k = 5, the labelled queries in turn;
 * - memory_search_vector: one vector_top_k search, k = 5, the query's embedding request to the
 *   fake on loopback included;
 * - memory_recall_keyword / _vector: recall@5 of the labelled queries at that size.
 * - memory_search_keyword_100k (group `memory-100k`): the keyword search at 100,000 episodes of
 *   the same generator, written without vectors (goal ≤ 10 ms at p50).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chunkMarkdown, MemoryStore, OpenAiEmbedder } from "../runtime/memory/index.js";
import type { EpisodeInput, MemoryHit, SearchMode } from "../runtime/memory/index.js";
import { openStore } from "../runtime/store/index.js";
import { startFakeEmbeddings } from "../test/helpers/fake-llm/embeddings.js";
import { loadCorpus, loadQueries, recallAt } from "../test/memory/corpus.js";
import { latency, value, type Metrics } from "./metrics.js";

const DIMENSIONS = 256;

export async function benchMemory(options: { quick?: boolean } = {}): Promise<Metrics> {
  const episodes = 10_000;
  const rounds = options.quick ? 4 : 20;
  const root = await mkdtemp(join(tmpdir(), "clawhive-bench-memory-"));
  const fake = await startFakeEmbeddings({ dimensions: DIMENSIONS });
  const store = await openStore({ url: `file:${join(root, "memory.db")}` });
  try {
    const embedder = new OpenAiEmbedder({ baseUrl: fake.baseUrl, model: "fake", dimensions: DIMENSIONS, batchSize: 512 });
    const memory = await MemoryStore.open(store, { embedder });
    const generated = await generate(episodes);
    const started = performance.now();
    for (let i = 0; i < generated.length; i += 100) await memory.writeMany("bench", generated.slice(i, i + 100));
    const insertSeconds = (performance.now() - started) / 1000;

    const queries = await loadQueries();
    const search = (mode: SearchMode) => (q: string): Promise<MemoryHit[]> => memory.search("bench", q, { k: 5, mode });
    const timed = async (mode: SearchMode): Promise<number[]> => {
      const samples: number[] = [];
      for (let r = 0; r < rounds; r++) {
        for (const q of queries) {
          const t = performance.now();
          await search(mode)(q.query);
          samples.push((performance.now() - t) * 1000);
        }
      }
      return samples;
    };
    await timed("keyword"); // warm the page cache and statement caches
    await timed("vector");
    return {
      memory_insert: value(episodes / insertSeconds, "per_s"),
      memory_search_keyword: latency(await timed("keyword"), "ms"),
      memory_search_vector: latency(await timed("vector"), "ms"),
      memory_recall_keyword: value((await recallAt(queries, search("keyword"))).recall, "ratio"),
      memory_recall_vector: value((await recallAt(queries, search("vector"))).recall, "ratio"),
    };
  } finally {
    await store.close();
    await fake.close();
    await rm(root, { recursive: true, force: true });
  }
}

export async function benchMemory100k(options: { quick?: boolean } = {}): Promise<Metrics> {
  const episodes = options.quick ? 20_000 : 100_000;
  const root = await mkdtemp(join(tmpdir(), "clawhive-bench-memory-"));
  const store = await openStore({ url: `file:${join(root, "memory.db")}` });
  try {
    const memory = await MemoryStore.open(store);
    const generated = await generate(episodes);
    for (let i = 0; i < generated.length; i += 500) await memory.writeMany("bench", generated.slice(i, i + 500));
    const queries = await loadQueries();
    const samples: number[] = [];
    for (let r = 0; r < (options.quick ? 3 : 10); r++) {
      for (const q of queries) {
        const t = performance.now();
        await memory.search("bench", q.query, { k: 5, mode: "keyword" });
        if (r > 0) samples.push((performance.now() - t) * 1000); // round 0 warms the caches
      }
    }
    return { [options.quick ? "memory_search_keyword_20k" : "memory_search_keyword_100k"]: latency(samples, "ms") };
  } finally {
    await store.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** The generated episodes (exported for experiments on the same data). */
export async function generate(count: number): Promise<{ episode: EpisodeInput; options: { id: string } }[]> {
  const sections: { doc: string; text: string }[] = [];
  for (const doc of await loadCorpus()) {
    for (const chunk of chunkMarkdown(doc.text)) {
      // The heading path as nested headings, so the episode's chunk keeps it.
      const heading = chunk.headingPath.map((h, i) => `${"#".repeat(i + 1)} ${h}\n`).join("");
      sections.push({ doc: doc.id, text: `${heading}${chunk.text}` });
    }
  }
  let seed = 0x2545f491;
  const next = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  return Array.from({ length: count }, (_, i) => {
    const section = sections[i % sections.length]!;
    // Copies differ by a note number and a few of their own section's words, as an agent's notes
    // on one topic do; words from other sections would only add noise no labelled query expects.
    const own = section.text.match(/[a-z]{4,}/g) ?? ["note"];
    const filler = Array.from({ length: 8 }, () => own[Math.floor(next() * own.length)]).join(" ");
    return { episode: { text: `${section.text}\n\nNote ${i}: ${filler}.`, source: i % 7 === 0 ? "tool" : "person" }, options: { id: `${section.doc}#${i}` } };
  });
}
