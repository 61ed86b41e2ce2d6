/**
 * ToolRetrieval on its own: keyword ranking in the store, the vector half from an embeddings
 * endpoint (vectors kept in the store, so a restart embeds no tool again), an endpoint that
 * fails costing only the vector half, and the Step's selection (always, pinned, ranked).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { OpenAiEmbedder } from "../../runtime/memory/embedder.js";
import { ToolRetrieval, toolRetrievalMigrations } from "../../runtime/runs/loop/tool-retrieval.js";
import type { ToolInfo } from "../../runtime/runs/types.js";
import { applyMigrations, openStore, type Store } from "../../runtime/store/index.js";
import { startFakeEmbeddings, type FakeEmbeddings } from "../helpers/fake-llm/embeddings.js";

const clock = { now: () => Date.now() };
/** The files plugin's own tool descriptions, as its `describe` returns them. */
const DESCRIBED = JSON.parse(readFileSync(fileURLToPath(new URL("../../../test/plugins/as/files-describe.json", import.meta.url)), "utf8")) as Array<{ name: string; description: string }>;
const TOOLS: ToolInfo[] = DESCRIBED.map((t) => ({ plugin: "files", name: t.name, qualifiedName: `files.${t.name}`, description: t.description, inputSchema: {}, capabilities: [], risk: "safe" }));
const names = (tools: readonly ToolInfo[]) => tools.map((t) => t.name);

let dir: string;
let store: Store;
let embeddings: FakeEmbeddings;
let failing: FakeEmbeddings;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "tool-retrieval-"));
  store = await openStore({ url: `file:${join(dir, "store.db")}`, clock });
  await applyMigrations(store, toolRetrievalMigrations, { clock });
  embeddings = await startFakeEmbeddings({ dimensions: 64 });
  failing = await startFakeEmbeddings({ dimensions: 64, failWith: 500 });
});
after(async () => {
  await store.close();
  await embeddings.close();
  await failing.close();
  await rm(dir, { recursive: true, force: true });
});

const withEmbedder = (fake: FakeEmbeddings, model = "fake") => new ToolRetrieval(store, { embedder: { model, get: () => new OpenAiEmbedder({ baseUrl: fake.baseUrl, model, dimensions: 64 }) } });

describe("ranking", () => {
  const cases: Array<[string, string, string]> = [
    ["a tool's own name", "grep for TODO", "grep"],
    ["words of its description", "find and replace a line of text in a file", "edit_file"],
    ["a directory listing", "list a directory's entries", "list_dir"],
    ["a glob", "find files by glob pattern", "glob"],
  ];
  for (const [what, query, best] of cases) {
    test(`keyword: ${what} ranks ${best} first`, async () => {
      assert.equal((await new ToolRetrieval(store).rank(TOOLS, query))[0]!.name, best);
    });
  }

  test("control: words no tool has keep the run's own order", async () => {
    assert.deepEqual(names(await new ToolRetrieval(store).rank(TOOLS, "zebra quokka")), names(TOOLS));
  });

  test("hostile FTS syntax is plain words", async () => {
    for (const query of ['grep" OR *', "NEAR(grep read)", "name:grep", "^grep", ")(", ""]) {
      const ranked = await new ToolRetrieval(store).rank(TOOLS, query);
      assert.equal(ranked.length, TOOLS.length, query);
    }
  });

  test("the vector half: tools embedded once, kept in the store; a restart embeds only the query", async () => {
    const first = embeddings.requests.length;
    assert.equal((await withEmbedder(embeddings).rank(TOOLS, "grep for TODO"))[0]!.name, "grep");
    const made = embeddings.requests.slice(first).map((r) => (r.body as { input: string[] }).input.length);
    assert.deepEqual(made, [TOOLS.length, 1], "one batch of the tools, then the query");
    const again = embeddings.requests.length;
    await withEmbedder(embeddings).rank(TOOLS, "edit a file");
    assert.deepEqual(embeddings.requests.slice(again).map((r) => (r.body as { input: string[] }).input.length), [1], "vectors read from the store");
  });

  test("an embeddings endpoint that fails costs the vector half, not the ranking", async () => {
    assert.equal((await withEmbedder(failing, "other-model").rank(TOOLS, "grep for TODO"))[0]!.name, "grep");
  });
});

describe("a Step's selection", () => {
  const retrieval = () => new ToolRetrieval(store);
  test("max_tools in all: always first, then pinned, then ranked; in the run's own order", async () => {
    const shown = await retrieval().select(TOOLS, { max_tools: 3, always: ["files.write_file"] }, { query: "grep for TODO", pinned: ["files.glob"] });
    assert.deepEqual(names(shown).sort(), ["glob", "grep", "write_file"]);
    assert.deepEqual(names(shown), names(TOOLS).filter((n) => names(shown).includes(n)));
  });
  test("the most recent pins win when there are more than fit", async () => {
    const shown = await retrieval().select(TOOLS, { max_tools: 2, always: [] }, { query: "", pinned: ["files.read_file", "files.glob", "files.list_dir"] });
    assert.deepEqual(names(shown).sort(), ["glob", "list_dir"]);
  });
  test("a name the run does not have, in always or pinned, is never shown", async () => {
    const shown = await retrieval().select(TOOLS.slice(0, 3), { max_tools: 2, always: ["shell.exec"] }, { query: "", pinned: ["web.fetch"] });
    assert.ok(shown.every((t) => TOOLS.slice(0, 3).includes(t)));
    assert.equal(shown.length, 2);
  });
  test("control: a run with no more tools than max_tools is shown all of them", async () => {
    assert.equal((await retrieval().select(TOOLS, { max_tools: 6, always: [] }, { query: "x", pinned: [] })).length, 6);
  });
});
