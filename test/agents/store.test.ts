import assert from "node:assert/strict";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { AgentManifestError, type AgentManifest } from "../../runtime/agents/index.js";
import { AgentStore, parseAgentSource } from "../../runtime/agents/store.js";
import { openStore, type Store } from "../../runtime/store/index.js";
import { tempDir } from "../helpers/runtime.js";

let store: Store;
let agents: AgentStore;
let dataDir: string;
let outside: string;
let now = 1_000;
const clock = { now: () => now++ };

before(async () => {
  store = await openStore({ url: ":memory:" });
  agents = await AgentStore.open(store, { clock });
  dataDir = await tempDir("clawhive-agent-store-");
  outside = await tempDir("clawhive-agent-outside-");
});
after(async () => {
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

function manifest(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    description: `agent ${name}`,
    model: { provider: "anthropic", id: "test-model" },
    system_prompt: "test",
    plugins: [{ name: "files", version: "*" }],
    grants: { "fs.read": { mounts: [{ guest: "/w", host: `./w-${name}` }] } },
    ...extra,
  };
}

const put = (name: string, value: Record<string, unknown>, known?: ReadonlyMap<string, AgentManifest>) =>
  agents.put(name, JSON.stringify(value), { format: "json", dataDir, ...(known ? { known } : {}) });

test("put keeps the text as given and creates data-dir mounts; get, list and remove read the store", async () => {
  const text = "# a comment that JSON could not keep\n" + JSON.stringify(manifest("alpha"));
  const result = await agents.put("alpha", text, { format: "yaml", dataDir });
  assert.equal(result.created, true);
  assert.equal(result.agent.source, text);
  assert.equal(result.parsed.manifest.grants["fs.read"]?.mounts[0]?.host, join(dataDir, "w-alpha"));
  assert.equal((await agents.put("alpha", text, { format: "yaml", dataDir })).created, false);
  assert.deepEqual((await agents.list()).map((a) => a.name), ["alpha"]);
  assert.equal((await agents.get("alpha"))?.format, "yaml");
  assert.equal(await agents.remove("alpha"), true);
  assert.equal(await agents.remove("alpha"), false);
  assert.equal(await agents.get("alpha"), undefined);
});

test("refusals store nothing and name the field", async () => {
  const refusals: Array<[string, () => Promise<unknown>, string]> = [
    ["another name", () => put("beta", manifest("gamma")), "name"],
    ["a wrong type", () => put("beta", manifest("beta", { model: 5 })), "model"],
    ["a reference to an unknown agent", () => put("beta", manifest("beta", { sub_agents: ["nobody"] }), new Map()), "sub_agents[0]"],
    ["malformed JSON", () => agents.put("beta", "{", { format: "json", dataDir }), "(root)"],
    ["an invalid name", () => agents.put("Beta", "{}", { format: "json", dataDir }), "name"],
  ];
  for (const [what, attempt, field] of refusals) {
    await assert.rejects(attempt(), (error: unknown) => {
      assert.ok(error instanceof Error && "field" in error, `${what}: ${String(error)}`);
      assert.equal((error as { field: string }).field, field, what);
      return true;
    });
  }
  assert.deepEqual(await agents.list(), []);
});

test("validation writes nothing: a data-dir mount that would be created is accepted, one outside must exist", async () => {
  const parsed = await parseAgentSource(JSON.stringify(manifest("delta")), { format: "json", dataDir, name: "delta" });
  assert.equal(parsed.manifest.name, "delta");
  await assert.rejects(import("node:fs/promises").then((fs) => fs.stat(join(dataDir, "w-delta"))), { code: "ENOENT" });
  const away = manifest("delta", { grants: { "fs.read": { mounts: [{ guest: "/w", host: join(outside, "missing") }] } } });
  await assert.rejects(parseAgentSource(JSON.stringify(away), { format: "json", dataDir }), (error: unknown) => error instanceof AgentManifestError && error.field === "grants.fs.read.mounts[0].host");
});

test("manifests(): what a runtime loads; a stale agent is reported and left out, the others load", async () => {
  const mount = join(outside, "kept");
  await mkdir(mount);
  await put("child", manifest("child", { grants: { log: {} } }));
  const parentGrants = { "fs.read": { mounts: [{ guest: "/w", host: "./w-parent" }] }, log: {} };
  await put("parent", manifest("parent", { sub_agents: ["child"], grants: parentGrants }), (await agents.manifests({ dataDir })).agents);
  await put("remote", manifest("remote", { grants: { "fs.read": { mounts: [{ guest: "/w", host: mount }] } } }));
  const loaded = await agents.manifests({ dataDir });
  assert.deepEqual([...loaded.agents.keys()].sort(), ["child", "parent", "remote"]);
  assert.deepEqual(loaded.problems, []);

  await agents.remove("child");
  await rm(mount, { recursive: true });
  const after = await agents.manifests({ dataDir });
  assert.deepEqual([...after.agents.keys()], []);
  assert.deepEqual(after.problems.map((p) => `${p.file} ${p.path}`).sort(), ["<stored agent parent> sub_agents[0]", "<stored agent remote> grants.fs.read.mounts[0].host"]);
  // A reference to an agent the runtime knows from elsewhere (a file) counts.
  const withFile = await agents.manifests({ dataDir, known: new Map([["child", loaded.agents.get("child")!]]) });
  assert.deepEqual([...withFile.agents.keys()], ["parent"]);
});
