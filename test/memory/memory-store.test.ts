import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { MemoryError, MemoryStore, OpenAiEmbedder } from "../../runtime/memory/index.js";
import type { Embedder } from "../../runtime/memory/index.js";
import { openStore } from "../../runtime/store/index.js";
import type { Store } from "../../runtime/store/index.js";
import { startFakeEmbeddings, type FakeEmbeddings } from "../helpers/fake-llm/embeddings.js";
import { tempDir, type TempDir } from "../store/temp-store.js";

const clock = { now: () => 1_700_000_000_000 };
const NOTE = "# Deploys\n## Rollback\nTo roll back a deploy run `deploy revert` with the release id.\n## Secrets\nThe heading:secret rotates weekly.";

// The same suite on each kind of store: `client` over a file runs the libSQL server driver's code path.
const stores: { name: string; open: (dir: TempDir) => Promise<Store> }[] = [
  { name: ":memory:", open: () => openStore({ url: ":memory:", clock }) },
  { name: "file", open: (dir) => openStore({ url: dir.url(), clock }) },
  { name: "file via the server driver", open: (dir) => openStore({ url: dir.url("client.db"), clock, driver: "client" }) },
];

let fake: FakeEmbeddings;
let embedder: Embedder;
before(async () => {
  fake = await startFakeEmbeddings({ dimensions: 64 });
  embedder = new OpenAiEmbedder({ baseUrl: fake.baseUrl, model: "fake", dimensions: 64, apiKey: async () => "test-key" });
});
after(() => fake.close());

for (const kind of stores) {
  describe(`MemoryStore on ${kind.name}`, () => {
    let dir: TempDir;
    let store: Store;
    let memory: MemoryStore;
    before(async () => {
      dir = await tempDir("clawhive-memory-");
      store = await kind.open(dir);
      memory = await MemoryStore.open(store, { clock, embedder });
    });
    after(async () => {
      await store.close();
      await dir.remove();
    });

    it("writes an episode and finds its chunk by keyword, with the heading path", async () => {
      const written = await memory.write("ops", { text: NOTE, source: "person" }, { id: "ep-1" });
      assert.deepEqual(written, { id: "ep-1", chunks: 2 });
      const [hit, ...rest] = await memory.search("ops", "how do I roll back a deploy?");
      assert.equal(hit?.episodeId, "ep-1");
      assert.deepEqual(hit?.headingPath, ["Deploys", "Rollback"]);
      assert.equal(hit?.title, "Deploys");
      assert.equal(hit?.untrusted, false);
      assert.equal(hit?.createdAt, clock.now());
      assert.ok(hit!.score > 0);
      assert.ok(rest.every((h) => h.score <= hit!.score));
    });

    it("finds it by vector and by hybrid search", async () => {
      const [byVector] = await memory.search("ops", "revert the release", { mode: "vector" });
      assert.deepEqual(byVector?.headingPath, ["Deploys", "Rollback"]);
      const [byBoth] = await memory.search("ops", "revert the release", { mode: "hybrid" });
      assert.deepEqual(byBoth?.headingPath, ["Deploys", "Rollback"]);
    });

    it("marks tool output untrusted whatever the caller says; others as asked", async () => {
      await memory.write("marks", { text: "zebra from a tool", source: "tool" }, { untrusted: false, id: "t" });
      await memory.write("marks", { text: "zebra from the model", source: "model" }, { untrusted: true, id: "m" });
      await memory.write("marks", { text: "zebra from a person", source: "person" }, { id: "p" });
      const hits = await memory.search("marks", "zebra", { k: 10 });
      const flags = Object.fromEntries(hits.map((h) => [h.episodeId, [h.source, h.untrusted]]));
      assert.deepEqual(flags, { t: ["tool", true], m: ["model", true], p: ["person", false] });
      const vectorHits = await memory.search("marks", "zebra tool", { mode: "vector", k: 10 });
      assert.equal(vectorHits.find((h) => h.episodeId === "t")?.untrusted, true);
    });

    it("reads only the partitions it is given, and never another agent's", async () => {
      await memory.write("lead", { text: "quokka in the lead's own notes", source: "model" }, { id: "own" });
      await memory.write("lead", { text: "quokka found by a sub-agent", source: "model" }, { id: "sub", partition: "lead/scout" });
      await memory.write("other", { text: "quokka of another agent", source: "model" }, { id: "foreign" });
      for (const mode of ["keyword", "vector", "hybrid"] as const) {
        const ids = async (partitions?: string[]) =>
          (await memory.search("lead", "quokka", { mode, k: 10, ...(partitions === undefined ? {} : { partitions }) })).map((h) => h.episodeId).sort();
        assert.deepEqual(await ids(), ["own"], mode);
        assert.deepEqual(await ids(["lead/scout"]), ["sub"], mode);
        assert.deepEqual(await ids(["lead", "lead/scout"]), ["own", "sub"], mode);
        assert.deepEqual(await ids(["other"]), [], mode);
        assert.deepEqual(await ids([]), [], mode);
      }
    });

    // FTS5 query syntax in user text must arrive as words (https://www.sqlite.org/fts5.html).
    const injections = [
      '"',
      '"""',
      "NEAR(deploy secret, 1)",
      "deploy*",
      "heading:Secrets",
      "text : rotates",
      "{heading text}: rotates",
      "^rotates",
      ") OR (",
      "rotates AND NOT deploy",
      "'; DROP TABLE memory_chunks; --",
      "\u0000rotates",
    ];
    for (const query of injections) {
      it(`treats ${JSON.stringify(query)} as text`, async () => {
        const before = (await store.execute("SELECT count(*) AS n FROM memory_chunks")).rows[0]?.n;
        const hits = await memory.search("ops", query, { k: 10 });
        for (const hit of hits) assert.equal(hit.episodeId, "ep-1");
        assert.equal((await store.execute("SELECT count(*) AS n FROM memory_chunks")).rows[0]?.n, before);
      });
    }
    it("control: the same words without syntax match", async () => {
      const hits = await memory.search("ops", "secret rotates");
      assert.deepEqual(hits[0]?.headingPath, ["Deploys", "Secrets"]);
      // The column filter's words are plain terms: "heading" matches nothing, "secrets" the heading.
      assert.deepEqual((await memory.search("ops", "heading:Secrets"))[0]?.headingPath, ["Deploys", "Secrets"]);
    });

    it("forgets an episode with its keyword rows and vectors", async () => {
      await memory.write("gone", { text: "# Wombat\nburrows", source: "person" }, { id: "w" });
      assert.equal((await memory.search("gone", "wombat")).length, 1);
      assert.equal(await memory.forget("gone", "w"), true);
      assert.equal((await memory.search("gone", "wombat")).length, 0);
      assert.equal((await memory.search("gone", "wombat", { mode: "vector" })).length, 0);
      assert.equal(await memory.forget("gone", "w"), false);
    });

    it("refuses bad input", async () => {
      await assert.rejects(memory.write("ops", { text: "  ", source: "person" }), { code: "invalid_input" });
      await assert.rejects(memory.write("ops", { text: "x", source: "robot" as "person" }), { code: "invalid_input" });
      await assert.rejects(memory.search("ops", "x", { k: 0 }), { code: "invalid_input" });
      await assert.rejects(memory.search("ops", "x", { k: 101 }), { code: "invalid_input" });
    });
  });
}

describe("MemoryStore without an embedder", () => {
  it("searches by keyword and refuses vector and hybrid search clearly", async () => {
    const store = await openStore({ url: ":memory:", clock });
    try {
      const memory = await MemoryStore.open(store, { clock });
      await memory.write("a", { text: "plain keyword memory", source: "person" });
      assert.equal((await memory.search("a", "keyword")).length, 1);
      for (const mode of ["vector", "hybrid"] as const) {
        await assert.rejects(memory.search("a", "keyword", { mode }), (e: unknown) => e instanceof MemoryError && e.code === "memory_no_embedder");
      }
    } finally {
      await store.close();
    }
  });
});

describe("OpenAiEmbedder", () => {
  it("sends the model, the texts and the bearer key; keeps the order", async () => {
    const [a, b] = await embedder.embed(["alpha beta", "gamma"]);
    assert.equal(a?.length, 64);
    assert.ok(b !== undefined && a !== undefined && a.some((x, i) => x !== b[i]));
    const req = fake.requests.at(-1)!;
    assert.equal(req.path, "/v1/embeddings");
    assert.equal(req.headers.authorization, "Bearer test-key");
    assert.deepEqual((req.body as { model: string; input: string[] }).input, ["alpha beta", "gamma"]);
  });

  it("fails memory_embedding_failed on an HTTP error, a wrong dimension or an unreachable server", async () => {
    const failing = await startFakeEmbeddings({ dimensions: 64, failWith: 500 });
    try {
      const cases = [
        new OpenAiEmbedder({ baseUrl: failing.baseUrl, model: "m", dimensions: 64 }),
        new OpenAiEmbedder({ baseUrl: fake.baseUrl, model: "m", dimensions: 32 }),
        new OpenAiEmbedder({ baseUrl: "http://127.0.0.1:1/v1", model: "m", dimensions: 64 }),
      ];
      for (const e of cases) await assert.rejects(e.embed(["x"]), (err: unknown) => err instanceof MemoryError && err.code === "memory_embedding_failed");
      assert.equal(failing.requests.length, 3, "a 5xx is tried 3 times");
    } finally {
      await failing.close();
    }
  });

  it("a failed embedding writes nothing", async () => {
    const store = await openStore({ url: ":memory:", clock });
    const failing = await startFakeEmbeddings({ dimensions: 64, failWith: 503 });
    try {
      const memory = await MemoryStore.open(store, { clock, embedder: new OpenAiEmbedder({ baseUrl: failing.baseUrl, model: "m", dimensions: 64 }) });
      await assert.rejects(memory.write("a", { text: "lost", source: "person" }), { code: "memory_embedding_failed" });
      assert.equal((await store.execute("SELECT count(*) AS n FROM memory_episodes")).rows[0]?.n, 0);
    } finally {
      await failing.close();
      await store.close();
    }
  });
});

describe("keyword search on a large store scores only the rarer words", () => {
  it("drops a common word once the rarer ones fill the row budget; control: a roomy budget keeps it", async () => {
    const store = await openStore({ url: ":memory:", clock });
    try {
      for (const [budget, want] of [[1, ["rare"]], [500, ["c1", "c2", "rare"]]] as const) {
        const memory = await MemoryStore.open(store, { clock, keywordRowBudget: budget });
        await store.execute("DELETE FROM memory_fts");
        await store.execute("DELETE FROM memory_chunks");
        await store.execute("DELETE FROM memory_episodes");
        await memory.write("a", { text: "common rare", source: "person" }, { id: "rare" });
        await memory.write("a", { text: "common words", source: "person" }, { id: "c1" });
        await memory.write("a", { text: "common again", source: "person" }, { id: "c2" });
        const ids = (await memory.search("a", "common rare", { k: 10 })).map((h) => h.episodeId).sort();
        assert.deepEqual(ids, want, `budget ${budget}`);
      }
    } finally {
      await store.close();
    }
  });
});
