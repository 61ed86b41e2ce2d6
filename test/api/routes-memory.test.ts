import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { readMemoryFile } from "../../runtime/memory/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { FILES_PLUGIN } from "../helpers/runtime.js";
import { errorOf } from "./fixtures.js";
import { apiFixture, call, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;

before(async () => {
  f = await apiFixture({ runtime: { pluginDirs: [FILES_PLUGIN, join(PROJECT_ROOT, "plugins", "memory")] } });
  for (const name of ["keeper", "helper"]) {
    await f.runtime.defineAgent({
      name,
      description: "memory API test agent",
      model: { provider: "anthropic", id: "test-model" },
      system_prompt: "test",
      plugins: [{ name: "memory", version: "*" }],
      grants: { memory: { read: ["agent"], write: ["agent"] } },
    });
  }
});
after(() => f.close());

test("a person writes, searches and forgets an agent's memory; the agent's sub-agent partitions are searched too", async () => {
  const written = await call(f, "POST", "/v1/agents/keeper/memory", { json: { text: "# Ada\nAda prefers tea to coffee.", title: "Ada's drinks" } });
  assert.equal(written.status, 201, written.text);
  const id = written.body.episode_id as string;
  // A note a sub-agent run wrote, in its partition of the root agent's memory.
  await (await f.runtime.memory()).write("keeper", { text: "Ada's tea is green.", source: "model" }, { partition: "keeper/helper" });
  const found = await call(f, "GET", "/v1/agents/keeper/memory?q=Ada%20tea&k=5", { token: f.token.approver });
  assert.equal(found.status, 200, found.text);
  assert.deepEqual(found.body.hits.map((h: { partition: string }) => h.partition).sort(), ["keeper", "keeper/helper"]);
  const mine = found.body.hits.find((h: { episode_id: string }) => h.episode_id === id);
  assert.deepEqual({ title: mine.title, source: mine.source, untrusted: mine.untrusted }, { title: "Ada's drinks", source: "person", untrusted: false });
  // Control: another agent's memory holds none of it.
  assert.deepEqual((await call(f, "GET", "/v1/agents/helper/memory?q=Ada")).body.hits, []);
  // Shared scope: written and read as that scope, not the agent's.
  assert.equal((await call(f, "POST", "/v1/agents/keeper/memory", { json: { text: "The user lives in Lyon.", scope: "user" } })).status, 201);
  assert.equal((await call(f, "GET", "/v1/agents/keeper/memory?q=Lyon")).body.hits.length, 0);
  assert.equal((await call(f, "GET", "/v1/agents/helper/memory?q=Lyon&scope=user")).body.hits.length, 1);
  assert.equal((await call(f, "DELETE", `/v1/agents/keeper/memory/${id}`)).status, 200);
  assert.equal((await call(f, "DELETE", `/v1/agents/keeper/memory/${id}`)).status, 404);
  assert.equal((await call(f, "GET", "/v1/agents/keeper/memory?q=coffee")).body.hits.length, 0);
});

test("MEMORY.md: put, get, and the cap refused with 413 naming the field (nothing written)", async () => {
  assert.deepEqual((await call(f, "GET", "/v1/agents/keeper/memory-file")).body, { text: "", bytes: 0 });
  const put = await call(f, "PUT", "/v1/agents/keeper/memory-file", { json: { text: "Always answer in French." } });
  assert.equal(put.status, 200, put.text);
  assert.equal((await call(f, "GET", "/v1/agents/keeper/memory-file", { token: f.token.approver })).body.text, "Always answer in French.");
  const big = await call(f, "PUT", "/v1/agents/keeper/memory-file", { json: { text: "x".repeat(32 * 1024 + 1) } });
  assert.equal(big.status, 413, big.text);
  assert.deepEqual([errorOf(big.text).code, errorOf(big.text).field], ["memory_file_too_large", "body.text"]);
  assert.equal(await readMemoryFile(f.dataDir, "keeper"), "Always answer in French.");
});

describe("bad input: 4xx naming the field", () => {
  const cases: Array<[what: string, method: string, path: string, json: unknown, status: number, field: string | undefined]> = [
    ["no q", "GET", "/v1/agents/keeper/memory", undefined, 400, "query.q"],
    ["k over 100", "GET", "/v1/agents/keeper/memory?q=x&k=101", undefined, 400, "query.k"],
    ["k zero", "GET", "/v1/agents/keeper/memory?q=x&k=0", undefined, 400, "query.k"],
    ["a dot-dot scope", "GET", "/v1/agents/keeper/memory?q=x&scope=../user", undefined, 400, "query.scope"],
    ["a nested project scope", "POST", "/v1/agents/keeper/memory", { text: "x", scope: "project/a/b" }, 400, "body.scope"],
    ["an empty note", "POST", "/v1/agents/keeper/memory", { text: "" }, 400, "body.text"],
    ["a note over 32 KiB", "POST", "/v1/agents/keeper/memory", { text: "y".repeat(32 * 1024 + 1) }, 400, "body.text"],
    ["an extra field", "POST", "/v1/agents/keeper/memory", { text: "x", source: "person" }, 400, "body.source"],
    ["MEMORY.md not text", "PUT", "/v1/agents/keeper/memory-file", { text: 42 }, 400, "body.text"],
    ["an unknown agent", "GET", "/v1/agents/nobody/memory?q=x", undefined, 404, undefined],
    ["a bad agent name", "GET", "/v1/agents/No.Body/memory?q=x", undefined, 400, "path.name"],
  ];
  for (const [what, method, path, json, status, field] of cases) {
    test(`${what} → ${status}`, async () => {
      const answer = await call(f, method, path, json === undefined ? {} : { json });
      assert.equal(answer.status, status, answer.text);
      if (field !== undefined) assert.equal(errorOf(answer.text).field, field, answer.text);
    });
  }
});

test("roles: approvers read, only admins change; clients get 403", async () => {
  for (const [method, path, json] of [
    ["POST", "/v1/agents/keeper/memory", { text: "x" }],
    ["PUT", "/v1/agents/keeper/memory-file", { text: "x" }],
    ["DELETE", "/v1/agents/keeper/memory/abc", undefined],
  ] as const) {
    assert.equal((await call(f, method, path, { token: f.token.approver, ...(json ? { json } : {}) })).status, 403, `${method} ${path}`);
  }
  for (const path of ["/v1/agents/keeper/memory?q=x", "/v1/agents/keeper/memory-file"]) {
    assert.equal((await call(f, "GET", path, { token: f.token.client })).status, 403);
    assert.equal((await call(f, "GET", path, { token: f.token.approver })).status, 200);
  }
});
