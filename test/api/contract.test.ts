/**
 * The OpenAPI document is the contract: every route's real answers, success and error, are
 * validated against the schema the document gives for their status (ajv, JSON Schema 2020-12),
 * and every documented JSON answer is exercised at least once.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { documentedRoutes } from "../../runtime/api/openapi.js";
import type { ToolCallOutcome } from "../../runtime/index.js";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-llm/index.js";
import { echoComponent, packTgz, writePackage } from "../helpers/plugin-packages.js";
import { remoteMcpServer } from "../helpers/mcp-remote.js";
import { defineTestAgent, tempDir } from "../helpers/runtime.js";
import { typedDummy, worldOf } from "../helpers/typed-components.js";
import { generatePublisherKey } from "../../runtime/plugins/signing/key.js";
import { defineLoopAgent, LLM_SECRET } from "../runs/_loop.js";
import { apiFixture, call, type Answer, type ApiFixture, type CallOptions } from "./routes-fixtures.js";

type Json = Record<string, unknown>;

let f: ApiFixture;
let fake: FakeOpenAi;
let doc: Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
/** `METHOD /template status` of every answer checked. */
const seen = new Set<string>();

before(async () => {
  f = await apiFixture();
  fake = await startFakeOpenAi();
  await f.runtime.setSecret(LLM_SECRET, "test-key");
  await defineLoopAgent(f.runtime, "talker", { provider: "openai", baseUrl: fake.baseUrl });
  doc = (await call(f, "GET", "/v1/openapi.json")).body as Json;
  ajv.addSchema({ $id: "doc", components: doc.components });
});
after(async () => {
  await fake.close();
  await f.close();
});

/** The operation of a concrete path, and its template (`/v1/runs/{id}`). */
function operationOf(method: string, path: string): { template: string; op: Json } {
  const bare = path.split("?")[0]!;
  for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    const op = ops[method.toLowerCase()];
    if (op !== undefined && pattern.test(bare)) return { template, op };
  }
  throw new Error(`${method} ${bare}: not in the OpenAPI document`);
}

/** Calls the API and validates the answer against the document; returns the answer. */
async function checked(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const answer = await call(f, method, path, options);
  const { template, op } = operationOf(method, path);
  const response = (op.responses as Record<string, Json>)[String(answer.status)];
  assert.ok(response, `${method} ${template}: answered ${answer.status}, which the document does not list: ${answer.text}`);
  const schema = ((response.content as Record<string, Json> | undefined)?.["application/json"]?.schema ?? undefined) as Json | undefined;
  assert.ok(schema, `${method} ${template} ${answer.status}: no JSON schema documented`);
  const validate = ajv.compile(rewriteRefs(schema));
  assert.ok(validate(answer.body), `${method} ${template} ${answer.status}: ${ajv.errorsText(validate.errors)}\n${answer.text.slice(0, 2000)}`);
  seen.add(`${method} ${template} ${answer.status}`);
  return answer;
}

/** `#/components/...` refs, resolved against the document registered as `doc`. */
function rewriteRefs(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', '"$ref":"doc#/')) as Json;
}

async function echoPackage(version: string, overrides: Json = {}): Promise<Buffer> {
  const root = await tempDir("clawhive-contract-");
  const echo = await echoComponent();
  const dir = await writePackage(root, `echo-${version}`, { ...echo.manifest, version, ...overrides }, echo.bytes);
  return readFile(await packTgz(dir, join(root, `echo-${version}.tgz`)));
}

test("every route's answers match the document, and every documented JSON answer is exercised", async () => {
  const client = { token: f.token.client };
  const approver = { token: f.token.approver };
  await checked("GET", "/health", { token: "" });
  await checked("GET", "/ready", { token: "" });
  await checked("GET", "/v1/openapi.json");

  // Plugins: upload, read, upgrade, list, remove.
  const v1 = await echoPackage("0.1.0");
  const installed = await checked("POST", "/v1/plugins", { body: v1, type: "application/gzip" });
  const name = installed.body.plugin.name as string;
  await checked("POST", "/v1/plugins", { body: v1, type: "application/gzip" });
  await checked("GET", `/v1/plugins/${name}`);
  // A widening upgrade refused is kept pending: read, rejected, sent again, accepted.
  const wider = await echoPackage("0.2.0", { capabilities: ["fs.read", "kv", "log"] });
  await checked("POST", `/v1/plugins/${name}/upgrade`, { body: wider, type: "application/gzip" });
  await checked("GET", "/v1/plugins/upgrades");
  await checked("GET", `/v1/plugins/${name}/upgrade`);
  await checked("DELETE", `/v1/plugins/${name}/upgrade`);
  await checked("GET", `/v1/plugins/${name}/upgrade`);
  await checked("POST", `/v1/plugins/${name}/upgrade`, { body: wider, type: "application/gzip" });
  await checked("POST", `/v1/plugins/${name}/upgrade/accept`);
  await checked("POST", `/v1/plugins/${name}/upgrade/accept`);
  await checked("POST", `/v1/plugins/${name}/upgrade?accept=true`, { body: await echoPackage("0.3.0", { capabilities: ["fs.read", "kv", "log"] }), type: "application/gzip" });
  await checked("GET", "/v1/plugins?limit=1");
  await checked("DELETE", `/v1/plugins/${name}`);
  await checked("GET", `/v1/plugins/${name}`);

  // Agents.
  const manifest = { name: "stored", description: "d", model: { provider: "anthropic", id: "m" }, system_prompt: "s", plugins: [{ name: "files", version: "*" }], grants: { log: {} } };
  await checked("PUT", "/v1/agents/stored", { body: JSON.stringify(manifest), type: "application/json" });
  await checked("PUT", "/v1/agents/stored", { body: JSON.stringify(manifest), type: "application/json" });
  await checked("GET", "/v1/agents/stored");
  await checked("POST", "/v1/agents/validate", { body: JSON.stringify(manifest), type: "application/json" });
  await checked("POST", "/v1/agents/validate", { body: JSON.stringify({ ...manifest, plugins: [{ name: "nope", version: "*" }] }), type: "application/json" });
  await checked("GET", "/v1/agents?limit=1");
  await checked("DELETE", "/v1/agents/stored");

  // Tools, skills, secrets.
  const agent = await defineTestAgent(f.runtime, "worker", { raise: [{ tool: "probe.echo", to: "guarded" }] });
  await checked("GET", "/v1/tools?limit=2", client);
  await checked("GET", `/v1/tools?agent=${agent}`, client);
  await checked("GET", "/v1/skills", client);
  await checked("GET", `/v1/skills?agent=${agent}`, client);
  await checked("GET", "/v1/skills/summarize-notes", client);
  await checked("PUT", "/v1/secrets/api_key", { json: { value: "a-long-enough-secret-value" } });
  await checked("PUT", "/v1/secrets/api_key", { json: { value: "another-long-secret-value" } });
  await checked("GET", "/v1/secrets");
  await checked("GET", "/v1/secrets/api_key");
  await checked("DELETE", "/v1/secrets/api_key");

  // Runs: explicit tool calls, a model-driven run with its conversation, a paused one and its approval.
  const run = await checked("POST", "/v1/runs?wait=true", { ...client, json: { agent, tool_calls: [{ name: "probe.count", input: {} }, { name: "files.read_file", input: { path: "/nope" } }] } });
  await checked("POST", "/v1/runs", { ...client, json: { agent, tool_calls: [{ name: "probe.count", input: {} }] } });
  fake.reply({ type: "text", text: "Hello." });
  const talk = await checked("POST", "/v1/runs?wait=true", { ...client, json: { agent: "talker", task: "Hi" } });
  await checked("GET", `/v1/conversations/${talk.body.run.conversation_id}`, client);
  // Its compactions: none, then one (as a run's compact Step records it), undone, undone again, unknown.
  const conversation = talk.body.run.conversation_id as string;
  await checked("GET", `/v1/conversations/${conversation}/compactions`, client);
  await checked("GET", "/v1/conversations/conv_none/compactions", client);
  await f.runtime.conversations.compactions.add({ conversationId: conversation, fromSeq: 1, throughSeq: 2, turns: 1, summary: "They said hi.", runId: talk.body.run.id, stepId: "step_1", model: "m", tokensBefore: 12, tokensAfter: 5 });
  await checked("GET", `/v1/conversations/${conversation}/compactions`, client);
  await checked("POST", `/v1/conversations/${conversation}/compactions/1/undo`, client);
  await checked("POST", `/v1/conversations/${conversation}/compactions/1/undo`, client);
  await checked("POST", `/v1/conversations/${conversation}/compactions/2/undo`, client);
  await checked("GET", `/v1/runs/${run.body.run.id}`, client);
  await checked("GET", "/v1/runs?limit=1", client);
  const paused = await f.runtime.startRun({ agent, task: "echo" });
  const outcome: ToolCallOutcome = await paused.callTool("probe.echo", { text: "x" });
  assert.equal(outcome.status, "approval_required", JSON.stringify(outcome));
  const approvals = await checked("GET", "/v1/approvals?limit=5", approver);
  const approvalId = approvals.body.approvals[0].id as string;
  await checked("GET", `/v1/approvals/${approvalId}`, approver);
  await checked("POST", `/v1/approvals/${approvalId}`, { ...approver, json: { decision: "approve" } });
  await checked("POST", `/v1/approvals/${approvalId}`, { ...approver, json: { decision: "approve" } });
  await checked("POST", `/v1/runs/${paused.id}/cancel`, { token: f.token.admin });
  // A pattern approval, listed, read and revoked.
  const patterned = await f.runtime.startRun({ agent, task: "echo by pattern" });
  const asks = await patterned.callTool("probe.echo", { text: "z" });
  if (asks.status !== "approval_required") assert.fail(JSON.stringify(asks));
  const byPattern = await checked("POST", `/v1/approvals/${asks.approval.id}`, { ...approver, json: { decision: "approve", scope: "pattern", pattern: { tool: "probe.echo", arguments: {} }, expires_in: "1h" } });
  await checked("GET", "/v1/approval-patterns?status=all", approver);
  await checked("GET", `/v1/approval-patterns/${byPattern.body.pattern.id}`, approver);
  await checked("DELETE", `/v1/approval-patterns/${byPattern.body.pattern.id}`, approver);
  await checked("DELETE", `/v1/approval-patterns/${byPattern.body.pattern.id}`, approver);
  await checked("POST", `/v1/runs/${patterned.id}/cancel`, { token: f.token.admin });
  // Another paused call, decided, continued here and now; once ended, nothing to resume (409).
  const resumable = await f.runtime.startRun({ agent, task: "echo again" });
  const waiting = await resumable.callTool("probe.echo", { text: "y" });
  if (waiting.status !== "approval_required") assert.fail(JSON.stringify(waiting));
  await checked("POST", `/v1/approvals/${waiting.approval.id}`, { ...approver, json: { decision: "approve" } });
  await checked("POST", `/v1/runs/${resumable.id}/resume`, { token: f.token.admin });
  await checked("POST", `/v1/runs/${resumable.id}/resume`, { token: f.token.admin });
  await checked("GET", `/v1/runs/${run.body.run.id}/todo`, client);
  await checked("GET", "/v1/runs/run_none/todo", client);
  await checked("GET", `/v1/audit?run_id=${run.body.run.id}&limit=2`, client);
  await checked("GET", "/v1/audit/verify");
  await checked("GET", "/v1/audit/1");
  await checked("GET", "/v1/audit/999999999");

  // Schedules.
  const at = new Date(Date.now() + 3_600_000).toISOString();
  const schedule = await checked("POST", "/v1/schedules", { ...client, json: { agent, task: "later", at } });
  await checked("GET", "/v1/schedules", client);
  await checked("GET", `/v1/schedules/${schedule.body.schedule.id}`, client);
  await checked("DELETE", `/v1/schedules/${schedule.body.schedule.id}`, client);

  // Memory.
  const written = await checked("POST", `/v1/agents/${agent}/memory`, { json: { text: "the sky is blue", title: "sky" } });
  await checked("GET", `/v1/agents/${agent}/memory?q=sky`, approver);
  await checked("DELETE", `/v1/agents/${agent}/memory/${written.body.episode_id}`);
  await checked("PUT", `/v1/agents/${agent}/memory-file`, { json: { text: "remember" } });
  await checked("GET", `/v1/agents/${agent}/memory-file`, approver);

  // Publisher keys: trusted, trusted again (unchanged), listed, revoked.
  const publisher = generatePublisherKey();
  const trust = { json: { public_key: publisher.publicKey, publisher: "contract-publisher" } };
  await checked("POST", "/v1/plugin-keys", trust);
  await checked("POST", "/v1/plugin-keys", trust);
  await checked("GET", "/v1/plugin-keys");
  await checked("POST", `/v1/plugin-keys/${publisher.keyId}/revoke`);

  // A bare typed component's proposed manifest; an HTTP MCP server's review and acceptance.
  const typed = await typedDummy(worldOf("  export add: func(a: u32, b: u32) -> u32;"));
  await checked("POST", "/v1/plugins/proposals", { body: Buffer.from(typed.bytes), type: "application/wasm" });
  const remote = await remoteMcpServer();
  try {
    const mcpAgent = {
      ...manifest,
      name: "mcp-user",
      plugins: [],
      grants: { log: {}, "http.fetch": { schemes: ["http"], hosts: ["127.0.0.1"], ports: [remote.port], methods: ["POST", "DELETE"], allow_addresses: ["127.0.0.1"] } },
      mcp_servers: { remote: { url: `http://127.0.0.1:${remote.port}/mcp` } },
    };
    await checked("PUT", "/v1/agents/mcp-user", { body: JSON.stringify(mcpAgent), type: "application/json" });
    const review = await checked("GET", "/v1/agents/mcp-user/mcp-servers/remote");
    await checked("POST", "/v1/agents/mcp-user/mcp-servers/remote/accept", { json: { diff_hash: review.body.review.diff.hash } });
  } finally {
    remote.server.close();
  }

  // Errors have the documented error shape too.
  await checked("GET", "/v1/runs?limit=0", client);
  await checked("GET", "/v1/runs?cursor=not-ours", client);
  await checked("GET", "/v1/runs", { token: "" });
  await checked("GET", "/v1/secrets", client);

  const jsonAnswers = documentedRoutes(doc).flatMap((route) => {
    const [method, path] = route.split(" ") as [string, string];
    const template = path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const op = (doc.paths as Record<string, Record<string, Json>>)[template]![method.toLowerCase()]!;
    return Object.entries(op.responses as Record<string, Json>)
      .filter(([status, response]) => Number(status) < 300 && (response.content as Json | undefined)?.["application/json"] !== undefined)
      .map(([status]) => `${method} ${template} ${status}`);
  });
  const missed = jsonAnswers.filter((answer) => !seen.has(answer));
  assert.deepEqual(missed, [], "every documented JSON success answer was exercised");
});

test("the document types every JSON success answer: none is a bare object", () => {
  for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(ops)) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const schema = (response.content as Record<string, Json> | undefined)?.["application/json"]?.schema as Json | undefined;
        if (Number(status) >= 300 || schema === undefined || template === "/v1/openapi.json") continue;
        assert.ok(schema.properties !== undefined || schema.anyOf !== undefined || schema.oneOf !== undefined, `${method} ${template} ${status}: ${JSON.stringify(schema)}`);
      }
    }
  }
});

test("list pages chain: next_cursor walks every item once, null on the last page", async () => {
  for (let i = 0; i < 3; i++) await f.runtime.setSecret(`page_${i}`, `secret-value-number-${i}`);
  const names: string[] = [];
  let cursor: string | null = null;
  do {
    const page: Answer = await checked("GET", `/v1/secrets?limit=2${cursor === null ? "" : `&cursor=${cursor}`}`);
    names.push(...page.body.secrets.map((s: { name: string }) => s.name));
    cursor = page.body.next_cursor;
  } while (cursor !== null);
  assert.deepEqual(names, [...new Set(names)].sort(), "each once, in order");
  assert.ok(["page_0", "page_1", "page_2"].every((n) => names.includes(n)));
});
