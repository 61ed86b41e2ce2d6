/**
 * The edges of `/mcp` over streamable HTTP: a request that starts no session writes nothing to
 * the store; session slots are shared per token (one token cannot take a node's every slot);
 * `/mcp` is in the OpenAPI document; tools the agent's grants can never satisfy are not offered,
 * and calling one by name is still denied by policy. Each refusal has its control beside it.
 */
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore, type TokenStore } from "../../runtime/api/auth/index.js";
import type { Runtime } from "../../runtime/index.js";
import { McpHttpSessions, type McpHttpOptions } from "../../runtime/mcp/index.js";
import { defineTestAgent, testRuntime } from "../helpers/runtime.js";
import { jsonCall, listen, type Listening } from "../api/fixtures.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let tokens: TokenStore;
let work: string;
const token = { admin: "", client: "", other: "" };
const opened: Array<{ sessions: McpHttpSessions; app: Listening }> = [];

before(async () => {
  const made = await testRuntime({ runLeaseMs: 300 });
  runtime = made.runtime;
  dispose = made.dispose;
  work = join(made.dataDir, "work");
  await mkdir(work);
  await defineTestAgent(runtime, "writer", { mounts: [{ guest: "/w", host: work, mode: "rw" }], plugins: ["files", "probe"] });
  await defineTestAgent(runtime, "reader", { mounts: [{ guest: "/w", host: work, mode: "ro" }], plugins: ["files", "probe"] });
  await defineTestAgent(runtime, "keeper", { plugins: ["probe"], extraGrants: { kv: { namespace: "keeper", quota_bytes: 1024 } } });
  tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
  token.admin = (await tokens.create("admin")).token;
  token.client = (await tokens.create("client")).token;
  token.other = (await tokens.create("client")).token;
});

after(async () => {
  for (const { sessions, app } of opened) {
    await sessions.close();
    await app.close();
  }
  await dispose();
});

async function endpoint(options: Partial<McpHttpOptions> = {}): Promise<Listening> {
  const sessions = new McpHttpSessions(runtime, { version: "test", pollMs: 20, watchMs: 0, ...options });
  const app = await listen(createApp({ runtime, tokens, version: "test", mcp: sessions }));
  opened.push({ sessions, app });
  return app;
}

const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });

function post(app: Listening, options: { token?: string; body?: string | Uint8Array; session?: string; accept?: string; type?: string; method?: string; agent?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { accept: options.accept ?? "application/json, text/event-stream", authorization: `Bearer ${options.token ?? token.client}` };
  if (options.type !== "") headers["content-type"] = options.type ?? "application/json";
  if (options.session) headers["mcp-session-id"] = options.session;
  const method = options.method ?? "POST";
  return fetch(`${app.base}/mcp?agent=${options.agent ?? "writer"}`, { method, headers, ...(method === "POST" ? { body: (options.body ?? INITIALIZE) as BodyInit } : {}) });
}

/** Starts a session with a raw initialize; returns its id. */
async function initialize(app: Listening, who: string, agent = "writer"): Promise<string> {
  const response = await post(app, { token: who, agent });
  assert.equal(response.status, 200, await response.clone().text());
  await response.body?.cancel();
  return response.headers.get("mcp-session-id")!;
}

/**
 * Every row of every table: what a request wrote, whatever it wrote. `audit_index` is left out:
 * the audit log fills it from `audit_records` when idle, so it follows records written before.
 */
async function storeRows(): Promise<Record<string, number>> {
  const tables = await runtime.store.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'audit_index'");
  const counts: Record<string, number> = {};
  for (const row of tables.rows) {
    const name = String(row.name);
    counts[name] = Number((await runtime.store.execute(`SELECT count(*) AS n FROM "${name}"`)).rows[0]!.n);
  }
  return counts;
}

const rpc = (body: unknown) => JSON.stringify(body);
const sessionless: Array<[string, (app: Listening) => Promise<Response>, number]> = [
  ["a stray tools/list", (app) => post(app, { body: rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }) }), 400],
  ["a stray tools/call", (app) => post(app, { body: rpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "probe__echo", arguments: {} } }) }), 400],
  ["a notification", (app) => post(app, { body: rpc({ jsonrpc: "2.0", method: "notifications/initialized" }) }), 400],
  ["a response", (app) => post(app, { body: rpc({ jsonrpc: "2.0", id: 1, result: {} }) }), 400],
  ["malformed JSON", (app) => post(app, { body: "{not json" }), 400],
  ["a body that is not UTF-8", (app) => post(app, { body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) }), 400],
  ["an empty body", (app) => post(app, { body: "" }), 400],
  ["JSON that is not JSON-RPC", (app) => post(app, { body: rpc({ hello: "world" }) }), 400],
  ["an initialize without clientInfo", (app) => post(app, { body: rpc({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {} } }) }), 400],
  ["a batch holding an initialize", (app) => post(app, { body: `[${INITIALIZE},${rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" })}]` }), 400],
  ["a batch of one initialize", (app) => post(app, { body: `[${INITIALIZE}]` }), 400],
  ["an initialize naming an unknown session", (app) => post(app, { session: "mcp_nope" }), 404],
  ["a tools/list naming an unknown session", (app) => post(app, { session: "mcp_nope", body: rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }) }), 404],
  ["an initialize without Accept: text/event-stream", (app) => post(app, { accept: "application/json" }), 406],
  ["an initialize with another Content-Type", (app) => post(app, { type: "text/plain" }), 415],
  ["an initialize for an unknown agent", (app) => post(app, { agent: "ghost" }), 404],
  ["a GET without a session", (app) => post(app, { method: "GET" }), 400],
  ["a DELETE without a session", (app) => post(app, { method: "DELETE" }), 400],
  ["a GET naming an unknown session", (app) => post(app, { method: "GET", session: "mcp_nope" }), 404],
  ["a DELETE naming an unknown session", (app) => post(app, { method: "DELETE", session: "mcp_nope" }), 404],
];

test("a request that starts no session is refused and writes nothing: no run row, no audit record, no event", async () => {
  const app = await endpoint();
  for (const [what, send, status] of sessionless) {
    const before = await storeRows();
    const response = await send(app);
    assert.equal(response.status, status, `${what}: ${await response.clone().text()}`);
    await response.body?.cancel();
    assert.deepEqual(await storeRows(), before, `${what} wrote to the store`);
  }
  // Control: an initialize starts the session's Run, which is written.
  const before = await storeRows();
  const id = await initialize(app, token.client);
  assert.equal((await storeRows()).runs, before.runs! + 1, "the session's run is on record");
  assert.equal((await post(app, { method: "DELETE", session: id })).status, 200);
});

test("one token cannot take every session slot: at its share, with every session busy, it is refused; another token still gets one", async () => {
  const app = await endpoint({ maxSessions: 4, maxSessionsPerPrincipal: 2, callTimeoutMs: 120_000 });
  const clients: Client[] = [];
  const calls: Array<Promise<unknown>> = [];
  try {
    for (const path of ["/w/busy-1.txt", "/w/busy-2.txt"]) {
      const client = new Client({ name: "busy", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${app.base}/mcp?agent=writer`), { requestInit: { headers: { authorization: `Bearer ${token.client}` } } }));
      clients.push(client);
      // A Guarded call a client token cannot approve: it waits in /v1/approvals, its session busy.
      calls.push(client.callTool({ name: "files__write_file", arguments: { path, content: "x" } }, undefined, { timeout: 120_000 }).catch(() => undefined));
    }
    await waitFor(async () => (await runtime.approvals.list({ status: "pending" })).filter((a) => String((a.input as { path?: string }).path).startsWith("/w/busy-")).length === 2, "both calls wait for a person");
    const refused = await post(app);
    assert.equal(refused.status, 429, await refused.clone().text());
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, "mcp_principal_sessions_full");
    // Control: another token gets a session on the same node.
    const other = await initialize(app, token.other);
    assert.match(other, /^mcp_/);
  } finally {
    for (const a of await runtime.approvals.list({ status: "pending" })) await runtime.approvals.decide(a.id, { decision: "deny", by: "test", reason: "done" }).catch(() => undefined);
    await Promise.all(calls);
    for (const client of clients) await client.close();
  }
});

test("at its share, a token's least recently used idle session is closed for its new one (its run ends); the others go on", async () => {
  const app = await endpoint({ maxSessions: 8, maxSessionsPerPrincipal: 2 });
  const first = await initialize(app, token.client);
  const second = await initialize(app, token.client);
  const third = await initialize(app, token.client);
  const list = (session: string) => post(app, { session, body: rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" }) }).then(async (r) => (await r.body?.cancel(), r.status));
  assert.equal(await list(first), 404, "the oldest idle session was closed");
  assert.equal(await list(second), 200);
  assert.equal(await list(third), 200);
});

test("a full node: the token holding the most gives up an idle session for a token holding fewer; none to give, 503", async () => {
  const app = await endpoint({ maxSessions: 3, maxSessionsPerPrincipal: 3 });
  const held = [await initialize(app, token.client), await initialize(app, token.client), await initialize(app, token.client)];
  const other = await initialize(app, token.other);
  assert.match(other, /^mcp_/);
  const list = (session: string, who = token.client) => post(app, { token: who, session, body: rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" }) }).then(async (r) => (await r.body?.cancel(), r.status));
  assert.equal(await list(held[0]!), 404, "the largest holder's oldest idle session made room");
  assert.equal(await list(held[1]!), 200);
  // Now 2 and 1 (and 1 more would make the newcomer's 2): nobody holds more than the newcomer would.
  const full = await post(app, { token: token.other });
  assert.equal(full.status, 503, await full.clone().text());
  assert.equal(((await full.json()) as { error: { code: string } }).error.code, "mcp_sessions_full");
});

test("the OpenAPI document lists POST, GET and DELETE /mcp with their responses, each with a schema or no body", async () => {
  const app = await endpoint();
  const doc = (await jsonCall(app.base, "GET", "/v1/openapi.json", { token: token.client })).body;
  const mcp = doc.paths["/mcp"];
  assert.ok(mcp, "the document lists /mcp");
  assert.deepEqual(Object.keys(mcp).sort(), ["delete", "get", "post"]);
  const expected: Record<string, string[]> = { post: ["200", "202", "400", "401", "403", "404", "406", "413", "415", "429", "503"], get: ["200", "400", "401", "403", "404", "406", "409", "429"], delete: ["200", "400", "401", "403", "404", "429"] };
  for (const [method, statuses] of Object.entries(expected)) {
    const op = mcp[method];
    assert.deepEqual(Object.keys(op.responses).sort(), statuses.sort(), method);
    assert.deepEqual(op["x-roles"].sort(), ["admin", "client"], method);
    assert.ok(op.parameters.some((p: { name: string; in: string }) => p.name === "agent" && p.in === "query"), method);
    for (const [status, response] of Object.entries(op.responses) as Array<[string, { content?: Record<string, { schema?: unknown }> }]>) {
      const bodyless = (method === "post" && status === "202") || (method === "delete" && status === "200");
      if (bodyless) assert.equal(response.content, undefined, `${method} ${status} has no body`);
      else for (const [type, media] of Object.entries(response.content ?? { none: {} })) assert.ok(media.schema, `${method} ${status} ${type} has a schema`);
    }
  }
  assert.equal(mcp.post.requestBody.content["application/json"].schema.properties.jsonrpc.const, "2.0");
  assert.ok(mcp.post.responses["200"].content["text/event-stream"]);
  assert.equal(mcp.post.responses["404"].content["application/json"].schema.properties.jsonrpc.const, "2.0", "a transport error has JSON-RPC's shape");
  assert.equal(mcp.post.responses["401"].content["application/json"].schema.$ref, "#/components/schemas/Error", "an API error has the API's");
});

async function session(app: Listening, agent: string): Promise<Client> {
  const client = new Client({ name: "lister", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.base}/mcp?agent=${agent}`), { requestInit: { headers: { authorization: `Bearer ${token.client}` } } }));
  return client;
}

test("tools the agent's grants can never satisfy are not offered; called by name they are denied with the policy's structured error", async () => {
  const app = await endpoint();
  const reader = await session(app, "reader");
  const writer = await session(app, "writer");
  const keeper = await session(app, "keeper");
  try {
    const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
    const read = await names(reader);
    // No fs.write grant at all: the tools that only write are never reachable.
    assert.ok(!read.includes("files__write_file"), read.join(" "));
    assert.ok(!read.includes("probe__kvset") && !read.includes("probe__kvget"), "no kv grant: the kv tools are not offered");
    assert.ok(read.includes("files__read_file") && read.includes("probe__echo"), "control: what it can use is offered");
    // Control: with the grants, the same tools are offered.
    assert.ok((await names(writer)).includes("files__write_file"));
    const kept = await names(keeper);
    assert.ok(kept.includes("probe__kvset") && kept.includes("probe__kvget"), kept.join(" "));
    // Hidden is not allowed: a call by name is decided by policy and denied, structured.
    const write = await reader.callTool({ name: "files__write_file", arguments: { path: "/w/no.txt", content: "x" } });
    assert.equal(write.isError, true);
    const error = (write.structuredContent as { error: { kind: string; denial?: { capability: string; reason: string } } }).error;
    assert.equal(error.kind, "denied", JSON.stringify(error));
    assert.equal(error.denial?.capability, "fs.write");
    assert.equal(error.denial?.reason, "not-granted");
    // A Safe tool runs, and its host call is denied (the probe reports it as its own failure).
    const kv = await reader.callTool({ name: "probe__kvset", arguments: { key: "k", value: "v" } });
    assert.equal(kv.isError, true);
    assert.match(JSON.stringify(kv.structuredContent), /kv/);
  } finally {
    await Promise.all([reader.close(), writer.close(), keeper.close()]);
  }
});

async function waitFor(probe: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > until) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
