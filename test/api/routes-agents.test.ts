import assert from "node:assert/strict";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { AgentStore } from "../../runtime/agents/store.js";
import { Runtime } from "../../runtime/index.js";
import { FILES_PLUGIN, PROBE_PLUGIN, tempDir } from "../helpers/runtime.js";
import { errorOf, listen } from "./fixtures.js";
import { apiFixture, BAD_PATH_NAMES, call, rawCall, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;
let agentsDir: string;

/** An agent manifest as YAML text; `extra` lines go at the end. */
function yamlAgent(name: string, extra = ""): string {
  return `# written by a person
name: ${name}
description: reads notes
model:
  provider: anthropic
  id: test-model
system_prompt: test
plugins:
  - name: files
    version: "*"
grants:
  fs.read:
    mounts:
      - { guest: /notes, host: ./notes-${name} }
  fs.write:
    mounts:
      - { guest: /notes, host: ./notes-${name} }
  log: {}
${extra}`;
}

function jsonAgent(name: string): Record<string, unknown> {
  return {
    name,
    description: "reads and writes without asking",
    model: { provider: "anthropic", id: "test-model" },
    system_prompt: "test",
    plugins: [{ name: "files", version: "*", tools: ["read_file", "write_file"] }],
    grants: { "fs.read": { mounts: [{ guest: "/w", host: "./w" }] }, "fs.write": { mounts: [{ guest: "/w", host: "./w" }] } },
    approvals: { lower_risk: [{ tool: "files.write_file", to: "safe", acknowledged: true }] },
  };
}

const putYaml = (name: string, text: string, token?: string) => call(f, "PUT", `/v1/agents/${name}`, { body: text, type: "application/yaml", ...(token ? { token } : {}) });
const storedNames = async () => (await (await AgentStore.open(f.runtime.store, { clock: f.runtime.clock })).list()).map((a) => `${a.name}@${a.updatedAt}`);

before(async () => {
  agentsDir = await tempDir("clawhive-api-agents-");
  await writeFile(join(agentsDir, "from-file.yaml"), yamlAgent("from-file"));
  f = await apiFixture({ runtime: { agentsDir }, app: { agentsDir } });
});
after(async () => {
  await f.close();
  await rm(agentsDir, { recursive: true, force: true });
});

test("PUT a YAML agent: stored as sent, listed, its tools shown; PUT again replaces it", async () => {
  const text = yamlAgent("notes");
  const created = await putYaml("notes", text);
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.agent.origin, "store");
  assert.equal(created.body.agent.format, "yaml");
  assert.equal(created.body.agent.source, text, "kept exactly as sent, comments too");
  assert.deepEqual(await readdir(f.dataDir).then((n) => n.filter((x) => x === "notes-notes")), ["notes-notes"], "its data-dir mount was created");

  const list = await call(f, "GET", "/v1/agents");
  assert.equal(list.status, 200);
  const byName = new Map(list.body.agents.map((a: { name: string; origin: string }) => [a.name, a.origin]));
  assert.equal(byName.get("notes"), "store");
  assert.equal(byName.get("from-file"), "file");

  const tools = await call(f, "GET", "/v1/tools?agent=notes", { token: f.token.client });
  assert.equal(tools.status, 200, tools.text);
  assert.ok(tools.body.tools.length > 0);
  assert.ok(tools.body.tools.every((t: { plugin: string }) => t.plugin === "files"), "only the plugins it lists");
  const write = tools.body.tools.find((t: { name: string }) => t.name === "files.write_file");
  assert.equal(write.risk, "guarded");
  assert.equal(write.input_schema.type, "object");

  const replaced = await putYaml("notes", yamlAgent("notes", "approvals:\n  expiry_minutes: 5\n"));
  assert.equal(replaced.status, 200, replaced.text);
  assert.equal(replaced.body.agent.manifest.approvals.expiry_minutes, 5);
  assert.equal(f.runtime.agents().find((a) => a.name === "notes")?.approvals.expiry_minutes, 5, "this runtime runs the new one");
});

test("PUT a JSON agent; GET /v1/tools?agent= shows its tool subset at the risk it gives them", async () => {
  const created = await call(f, "PUT", "/v1/agents/writer", { json: jsonAgent("writer") });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.agent.format, "json");
  assert.deepEqual(JSON.parse(created.body.agent.source), jsonAgent("writer"));
  assert.deepEqual(created.body.warnings, []);
  const tools = await call(f, "GET", "/v1/tools?agent=writer", { token: f.token.client });
  assert.deepEqual(tools.body.tools.map((t: { name: string }) => t.name).sort(), ["files.read_file", "files.write_file"]);
  const write = tools.body.tools.find((t: { name: string }) => t.name === "files.write_file");
  assert.equal(write.risk, "safe");
  assert.equal(write.plugin_risk, "guarded");
  const all = await call(f, "GET", "/v1/tools", { token: f.token.client });
  assert.ok(all.body.tools.some((t: { plugin: string }) => t.plugin === "probe"), "without ?agent= every loaded tool");
  assert.equal((await call(f, "GET", "/v1/tools?agent=nobody")).status, 404);
});

test("stored agents survive a restart and are seen by another runtime on the same store", async () => {
  await putYaml("lasting", yamlAgent("lasting"));
  const second = await Runtime.create({ dataDir: f.dataDir, agentsDir, pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN] });
  const server = await listen(createApp({ runtime: second, tokens: f.tokens, version: "test", agentsDir }));
  try {
    const one = await fetch(`${server.base}/v1/agents/lasting`, { headers: { authorization: `Bearer ${f.token.admin}` } });
    assert.equal(one.status, 200);
    const body = (await one.json()) as { agent: { origin: string; source: string } };
    assert.equal(body.agent.origin, "store");
    assert.equal(body.agent.source, yamlAgent("lasting"));
    const tools = await fetch(`${server.base}/v1/tools?agent=lasting`, { headers: { authorization: `Bearer ${f.token.client}` } });
    assert.equal(tools.status, 200);
    // What a runtime loads at start and before each run (the runtime's own wiring calls this).
    const loaded = await (await AgentStore.open(second.store, { clock: second.clock })).manifests({ dataDir: second.dataDir, known: new Map(second.agents().map((a) => [a.name, a])) });
    assert.ok(loaded.agents.has("lasting"));
    assert.deepEqual(loaded.problems, []);
  } finally {
    await server.close();
    await second.close();
  }
});

test("a file agent cannot be replaced or removed through the API (409 naming the file); a stored one is removed", async () => {
  const put = await putYaml("from-file", yamlAgent("from-file"));
  assert.equal(put.status, 409);
  assert.equal(put.body.error.code, "agent_defined_by_file");
  assert.ok(put.body.error.message.includes(join(agentsDir, "from-file.yaml")), put.body.error.message);
  const del = await call(f, "DELETE", "/v1/agents/from-file");
  assert.equal(del.status, 409);
  assert.equal(del.body.error.code, "agent_defined_by_file");

  await putYaml("short-lived", yamlAgent("short-lived"));
  const removed = await call(f, "DELETE", "/v1/agents/short-lived");
  assert.equal(removed.status, 200, removed.text);
  assert.equal(removed.body.removed.name, "short-lived");
  assert.equal((await call(f, "GET", "/v1/agents/short-lived")).status, 404);
  assert.equal((await call(f, "DELETE", "/v1/agents/short-lived")).status, 404);
  // Control: the same name can be defined again.
  assert.equal((await putYaml("short-lived", yamlAgent("short-lived"))).status, 201);
});

test("POST /v1/agents/validate checks without storing or creating anything", async () => {
  const before = await storedNames();
  const ok = await call(f, "POST", "/v1/agents/validate?name=fresh", { body: yamlAgent("fresh"), type: "application/yaml" });
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual(ok.body, { valid: true, name: "fresh", warnings: [] });
  assert.deepEqual((await readdir(f.dataDir)).filter((n) => n === "notes-fresh"), [], "no mount folder made");
  const bad = await call(f, "POST", "/v1/agents/validate", { json: { ...jsonAgent("bad"), grants: { "fs.read": { mounts: "everything" } } } });
  assert.equal(bad.status, 200);
  assert.equal(bad.body.valid, false);
  assert.equal(bad.body.issues[0].path, "grants.fs.read.mounts");
  const missing = await call(f, "POST", "/v1/agents/validate", { json: { ...jsonAgent("lonely"), sub_agents: ["ghost"] } });
  assert.equal(missing.body.valid, false);
  assert.match(missing.body.issues[0].message, /no agent named ghost/);
  const wrongName = await call(f, "POST", "/v1/agents/validate?name=other", { body: yamlAgent("fresh"), type: "application/yaml" });
  assert.equal(wrongName.body.issues[0].path, "name");
  assert.deepEqual(await storedNames(), before);
});

test("POST /v1/agents/validate reports the skills and sub-agents an agent could not use, each naming its field", async () => {
  const check = async (manifest: Record<string, unknown>) => {
    const answer = await call(f, "POST", "/v1/agents/validate", { json: manifest });
    assert.equal(answer.status, 200, answer.text);
    return answer.body as { valid: boolean; issues?: Array<{ path: string; message: string }> };
  };
  // As wide as the sub-agent from-file: what a parent starting it needs to not be warned.
  const notes = { mounts: [{ guest: "/notes", host: "./notes-from-file" }] };
  const readOnly = { "fs.read": notes, "fs.write": notes, log: {} };
  // Control: a skill whose tools the agent has and is granted, a granted sub-agent.
  const fits = await check({ ...jsonAgent("fits"), approvals: {}, plugins: [{ name: "files", version: "*" }], skills: ["summarize-notes"], sub_agents: ["from-file"], grants: { ...readOnly, "agent.spawn": { agents: ["from-file"] } } });
  assert.deepEqual(fits, { valid: true, name: "fits", warnings: [] });
  const cases: Array<[what: string, extra: Record<string, unknown>, path: string, message: RegExp]> = [
    ["a skill not in the skills dir", { skills: ["no-such-skill"] }, "skills[0]", /no skill named no-such-skill/],
    ["a skill whose tool needs a capability not granted", { skills: ["summarize-notes"], grants: { "fs.write": { mounts: [{ guest: "/w", host: "./w" }] } } }, "skills[0]", /requires tool files\.list_dir, which needs fs\.read, not granted to agent refs/],
    ["a skill whose tools the plugin list leaves out", { skills: ["triage-inbox"] }, "skills[0]", /requires tool mail\.list_unread, which agent refs does not have/],
    ["a sub-agent that does not exist", { sub_agents: ["ghost"], grants: { ...readOnly, "agent.spawn": { agents: ["ghost"] } } }, "sub_agents[0]", /no agent named ghost/],
    ["a sub-agent without agent.spawn", { sub_agents: ["from-file"], grants: readOnly }, "sub_agents[0]", /from-file is listed but grants\.agent\.spawn\.agents does not name it/],
    ["a sub-agent under max_depth 0", { sub_agents: ["from-file"], grants: { ...readOnly, "agent.spawn": { agents: ["from-file"] } }, limits: { max_depth: 0 } }, "limits.max_depth", /is 0, so no sub-agent can ever start/],
  ];
  for (const [what, extra, path, message] of cases) {
    const answer = await check({ ...jsonAgent("refs"), approvals: {}, plugins: [{ name: "files", version: "*" }], ...extra });
    assert.equal(answer.valid, false, what);
    assert.equal(answer.issues?.[0]?.path, path, `${what}: ${JSON.stringify(answer.issues)}`);
    assert.match(answer.issues![0]!.message, message, what);
  }
});

describe("PUT /v1/agents/:name bad input: the right 4xx and nothing stored", () => {
  type Case = [what: string, send: () => Promise<{ status: number; text: string }>, status: number, code: string, field?: string];
  const cases: Case[] = [
    ["a field of the wrong type", () => call(f, "PUT", "/v1/agents/typed", { json: { ...jsonAgent("typed"), model: 5 } }), 400, "invalid_input", "body.model"],
    ["a missing field", () => call(f, "PUT", "/v1/agents/partial", { json: { name: "partial" } }), 400, "invalid_input"],
    ["malformed JSON", () => call(f, "PUT", "/v1/agents/broken", { body: '{"name": "broken",', type: "application/json" }), 400, "invalid_input", "body"],
    ["malformed YAML", () => putYaml("broken", "name: [unclosed\n"), 400, "invalid_input", "body"],
    ["a JSON array", () => call(f, "PUT", "/v1/agents/listy", { json: [jsonAgent("listy")] }), 400, "invalid_input", "body"],
    ["a name other than the path's", () => putYaml("alias", yamlAgent("notes")), 400, "invalid_input", "body.name"],
    ["a mount outside the data dir that does not exist", () => putYaml("ghost", yamlAgent("ghost").replaceAll("./notes-ghost", "/nonexistent/ghost")), 400, "invalid_input", "body.grants.fs.read.mounts[0].host"],
    ["a reference to an unknown agent", () => call(f, "PUT", "/v1/agents/parent", { json: { ...jsonAgent("parent"), sub_agents: ["ghost"] } }), 400, "invalid_input", "body.sub_agents[0]"],
    ["text/plain", () => call(f, "PUT", "/v1/agents/plain", { body: yamlAgent("plain"), type: "text/plain" }), 415, "unsupported_media_type", "body"],
    ["not UTF-8", () => call(f, "PUT", "/v1/agents/bytes", { body: Buffer.from([0x6e, 0x61, 0xff, 0xfe]), type: "application/yaml" }), 400, "invalid_input", "body"],
    ["over the 1 MiB body limit", () => rawCall(f, "PUT", "/v1/agents/huge", { type: "application/yaml", chunks: [Buffer.alloc(1024 * 1024 + 1, 0x20)], contentLength: true }), 413, "body_too_large"],
    ["chunked over the limit", () => rawCall(f, "PUT", "/v1/agents/huge", { type: "application/yaml", chunks: Array.from({ length: 5 }, () => Buffer.alloc(256 * 1024, 0x20)) }), 413, "body_too_large"],
    ["a manifest over 256 KiB", () => putYaml("big", `${yamlAgent("big")}# ${"x".repeat(300 * 1024)}\n`), 400, "invalid_input", "body"],
    ["// in the path", () => rawCall(f, "PUT", "/v1/agents//", { type: "application/yaml", chunks: ["x"] }), 400, "invalid_path", "path"],
    ...BAD_PATH_NAMES.flatMap(([what, name, code]): Case[] => [
      [`${what} in :name (put)`, () => rawCall(f, "PUT", `/v1/agents/${name}`, { type: "application/yaml", chunks: [yamlAgent("x")] }), 400, code],
      [`${what} in :name (delete)`, () => rawCall(f, "DELETE", `/v1/agents/${name}`), 400, code],
    ]),
  ];
  for (const [what, send, status, code, field] of cases) {
    test(`${what} → ${status} ${code}`, async () => {
      const before = await storedNames();
      const answer = await send();
      assert.equal(answer.status, status, answer.text);
      const error = errorOf(answer.text);
      assert.equal(error.code, code, answer.text);
      if (field !== undefined) assert.equal(error.field, field, answer.text);
      assert.deepEqual(await storedNames(), before);
    });
  }
});

test("agents are for admins; tools for admins and clients", async () => {
  const before = await storedNames();
  for (const token of [f.token.approver, f.token.client]) {
    for (const [method, path] of [["GET", "/v1/agents"], ["GET", "/v1/agents/from-file"], ["PUT", "/v1/agents/roles"], ["DELETE", "/v1/agents/notes"], ["POST", "/v1/agents/validate"]] as const) {
      const answer = await call(f, method, path, { token, ...(method === "GET" || method === "DELETE" ? {} : { body: yamlAgent("roles"), type: "application/yaml" }) });
      assert.equal(answer.status, 403, `${method} ${path}: ${answer.text}`);
    }
  }
  assert.equal((await call(f, "GET", "/v1/tools", { token: f.token.approver })).status, 403);
  assert.equal((await call(f, "GET", "/v1/tools", { token: f.token.client })).status, 200);
  assert.equal((await call(f, "GET", "/v1/tools", { token: f.token.admin })).status, 200);
  assert.deepEqual(await storedNames(), before);
});

test("a data dir agents folder is made for a fresh mount", async () => {
  // A mount under a folder that does not exist yet, inside the data dir, is created by PUT.
  await mkdir(join(f.dataDir, "deep"), { recursive: true });
  const text = yamlAgent("deep").replaceAll("./notes-deep", "./deep/a/b");
  assert.equal((await putYaml("deep", text)).status, 201);
  assert.deepEqual(await readdir(join(f.dataDir, "deep", "a")), ["b"]);
});
