/**
 * The MCP server over streamable HTTP, driven by the SDK's own Client: the agent's tools, calls
 * through policy and audit, a denial, Guarded calls approved by elicitation and through
 * /v1/approvals, cancellation, list_changed, and the endpoint's refusals beside their controls.
 */
import assert from "node:assert/strict";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import type { Runtime } from "../../runtime/index.js";
import { LazyMcpHttpSessions, McpHttpSessions } from "../../runtime/mcp/index.js";
import { echoComponent, writePackage } from "../helpers/plugin-packages.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";
import { jsonCall, listen, type Listening } from "../api/fixtures.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let server: Listening;
// As `clawhive serve` mounts it: loaded on the first /mcp request.
let sessions: LazyMcpHttpSessions;
let work: string;
const token: Record<"admin" | "client" | "approver", string> = { admin: "", client: "", approver: "" };
const tokenId: Record<"admin" | "client", string> = { admin: "", client: "" };

before(async () => {
  const made = await testRuntime({ runLeaseMs: 300 });
  runtime = made.runtime;
  dispose = made.dispose;
  work = join(made.dataDir, "work");
  await mkdir(work);
  await defineTestAgent(runtime, "writer", { mounts: [{ guest: "/w", host: work, mode: "rw" }], plugins: ["files", "probe"] });
  const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
  const admin = await tokens.create("admin");
  const client = await tokens.create("client");
  token.admin = admin.token;
  token.client = client.token;
  tokenId.admin = admin.info.id;
  tokenId.client = client.info.id;
  token.approver = (await tokens.create("approver")).token;
  sessions = new LazyMcpHttpSessions(runtime, { version: "test", pollMs: 20, watchMs: 100 });
  server = await listen(createApp({ runtime, tokens, version: "test", mcp: sessions }));
});

after(async () => {
  await sessions.close();
  await server.close();
  await dispose();
});

async function connect(options: { token?: string; agent?: string; elicit?: (message: string) => ElicitResult } = {}): Promise<Client> {
  const client = new Client({ name: "test-client", version: "1.0.0" }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} });
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) => answer(request.params.message));
  }
  const url = new URL(`${server.base}/mcp?agent=${options.agent ?? "writer"}`);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${options.token ?? token.client}` } } }));
  return client;
}

function text(result: object): string {
  return (((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("");
}

test("tools/list offers exactly the agent's tools, named as the model loop names them, with their schemas", async () => {
  const client = await connect();
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    // The agent's tools but those its grants can never satisfy (no kv grant: probe's kv tools).
    const expected = (await jsonCall(server.base, "GET", "/v1/tools?agent=writer", { token: token.client })).body.tools
      .map((t: { name: string }) => t.name.replace(".", "__"))
      .filter((name: string) => !name.startsWith("probe__kv"))
      .sort();
    assert.deepEqual(names, expected);
    const write = tools.find((t) => t.name === "files__write_file")!;
    assert.equal(write.inputSchema.type, "object");
    assert.ok(write.inputSchema.properties && "path" in write.inputSchema.properties);
    // A plugin's schema is draft-07 to clawhive; a client would read it as 2020-12 unless named.
    assert.equal(write.inputSchema.$schema, "http://json-schema.org/draft-07/schema#");
    assert.equal(write.annotations?.readOnlyHint, false);
    assert.equal(tools.find((t) => t.name === "files__read_file")!.annotations?.readOnlyHint, true);
  } finally {
    await client.close();
  }
});

test("a Safe call runs in the session's run and is audited under it; the run ends with the session", async () => {
  const client = await connect();
  const result = await client.callTool({ name: "probe__echo", arguments: { hello: "mcp" } });
  assert.equal(result.isError, undefined);
  assert.deepEqual(JSON.parse(text(result)), { hello: "mcp" });
  assert.deepEqual(result.structuredContent, { hello: "mcp" });
  // The qualified name is accepted too.
  assert.equal((await client.callTool({ name: "probe.echo", arguments: { n: 2 } })).isError, undefined);
  const runs = (await runtime.records.list({})).filter((r) => r.task?.startsWith("MCP session") && r.ownerToken === tokenId.client);
  const run = runs.find((r) => r.status !== "ended");
  assert.ok(run, "the session's run is open while the session is");
  const audit = await runtime.audit.query({ runId: run.id });
  assert.ok(audit.records.some((r) => r.toolCall?.name === "probe.echo" && r.status === "ok"), "the call is audited under the session's run");
  // A client ends its session with DELETE (the SDK's terminateSession).
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
  await client.close();
  await waitFor(async () => (await runtime.records.get(run.id))?.status === "ended", "the session's run ends when the client closes the session");
  assert.ok((await runtime.records.get(run.id))?.report, "the ended run has its least-privilege report");
});

test("a denied host call comes back as an isError result carrying the structured denial", async () => {
  const client = await connect();
  try {
    const result = await client.callTool({ name: "files__read_file", arguments: { path: "/w/../../etc/passwd" } });
    assert.equal(result.isError, true);
    const error = (result.structuredContent as { error: { kind: string; denial?: { capability: string; reason: string } } }).error;
    assert.equal(error.kind, "denied");
    assert.equal(error.denial?.capability, "fs.read");
    // Control: inside the mount it reads.
    await import("node:fs/promises").then((fs) => fs.writeFile(join(work, "ok.txt"), "fine\n"));
    const ok = await client.callTool({ name: "files__read_file", arguments: { path: "/w/ok.txt" } });
    assert.equal(ok.isError, undefined, text(ok));
    assert.match(text(ok), /fine/);
  } finally {
    await client.close();
  }
});

test("an unknown tool is an isError result, and the session goes on", async () => {
  const client = await connect();
  try {
    const result = await client.callTool({ name: "nope__nothing", arguments: {} });
    assert.equal(result.isError, true);
    assert.equal((await client.callTool({ name: "probe__echo", arguments: {} })).isError, undefined);
  } finally {
    await client.close();
  }
});

test("a Guarded call asks the person through elicitation (admin session): approved once, it runs; denied, it does not", async () => {
  let shown = "";
  const approving = await connect({ token: token.admin, elicit: (message) => ((shown = message), { action: "accept", content: { decision: "once" } }) });
  try {
    const result = await approving.callTool({ name: "files__write_file", arguments: { path: "/w/elicited.txt", content: "approved\n" } });
    assert.equal(result.isError, undefined, text(result));
    assert.equal(await readFile(join(work, "elicited.txt"), "utf8"), "approved\n");
    assert.match(shown, /files\.write_file \(guarded\)/);
    assert.match(shown, /elicited\.txt/, "the person sees the exact arguments");
    const decided = (await runtime.approvals.list({ status: "used" })).find((a) => (a.input as { path?: string }).path === "/w/elicited.txt");
    assert.equal(decided?.decidedBy, tokenId.admin);
  } finally {
    await approving.close();
  }
  const denying = await connect({ token: token.admin, elicit: () => ({ action: "decline" }) });
  try {
    const result = await denying.callTool({ name: "files__write_file", arguments: { path: "/w/declined.txt", content: "no\n" } });
    assert.equal(result.isError, true);
    assert.equal((result.structuredContent as { error: { kind: string } }).error.kind, "approval-denied");
    await assert.rejects(readFile(join(work, "declined.txt")), /ENOENT/);
  } finally {
    await denying.close();
  }
});

test("a client token cannot approve through elicitation: its Guarded call waits in /v1/approvals and goes on once a person decides", async () => {
  let asked = false;
  const client = await connect({ elicit: () => ((asked = true), { action: "accept", content: { decision: "once" } }) });
  try {
    const said: string[] = [];
    const calling = client.callTool({ name: "files__write_file", arguments: { path: "/w/waited.txt", content: "later\n" } }, undefined, {
      onprogress: (p) => void said.push(p.message ?? ""),
      timeout: 60_000,
    });
    const pending = await waitFor(async () => (await runtime.approvals.list({ status: "pending" })).find((a) => (a.input as { path?: string }).path === "/w/waited.txt"), "the approval is pending");
    // The progress notice follows the approval's filing; a person decides once the client was told.
    await waitFor(async () => said.some((m) => m.includes(`waiting for approval ${pending.id}`)) || undefined, `progress names the approval`);
    const decided = await jsonCall(server.base, "POST", `/v1/approvals/${pending.id}`, { token: token.approver, body: { decision: "approve" } });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    const result = await calling;
    assert.equal(result.isError, undefined, text(result));
    assert.equal(await readFile(join(work, "waited.txt"), "utf8"), "later\n");
    assert.equal(asked, false, "a client token's session is never asked to approve");
    assert.ok(said.some((m) => m.includes(`waiting for approval ${pending.id}`)), `progress names the approval: ${JSON.stringify(said)}`);
  } finally {
    await client.close();
  }
});

test("a call nobody approves within its deadline is withdrawn: the approval can no longer be approved", async () => {
  const quick = new McpHttpSessions(runtime, { version: "test", pollMs: 20, callTimeoutMs: 300, watchMs: 0 });
  const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
  const app = await listen(createApp({ runtime, tokens, version: "test", mcp: quick }));
  const client = new Client({ name: "t", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.base}/mcp?agent=writer`), { requestInit: { headers: { authorization: `Bearer ${token.client}` } } }));
  try {
    const result = await client.callTool({ name: "files__write_file", arguments: { path: "/w/never.txt", content: "x" } });
    assert.equal(result.isError, true);
    const error = (result.structuredContent as { error: { kind: string; message: string } }).error;
    assert.equal(error.kind, "approval-timeout");
    const id = /approval (apr_\S+) was withdrawn/.exec(error.message)?.[1];
    assert.ok(id, error.message);
    assert.equal((await runtime.approvals.get(id))?.status, "denied");
    await assert.rejects(readFile(join(work, "never.txt")), /ENOENT/);
    // The session goes on.
    assert.equal((await client.callTool({ name: "probe__echo", arguments: {} })).isError, undefined);
  } finally {
    await client.close();
    await quick.close();
    await app.close();
  }
});

test("a client's cancellation stops the ToolCall; the session goes on", async () => {
  const client = await connect();
  try {
    const abort = new AbortController();
    const calling = client.callTool({ name: "probe__loop", arguments: {} }, undefined, { signal: abort.signal, timeout: 60_000 });
    await waitFor(async () => runtime.sandbox.stats().instances > 0, "the spinning call started");
    await new Promise((r) => setTimeout(r, 50));
    abort.abort("enough");
    await assert.rejects(calling);
    const after = await client.callTool({ name: "probe__echo", arguments: { after: true } });
    assert.equal(after.isError, undefined, text(after));
  } finally {
    await client.close();
  }
});

test("an upgrade that changes the agent's tools tells the client (tools/list_changed) and the next call runs in a new run", async () => {
  const { bytes, manifest } = await echoComponent();
  const dir = await tempDir("clawhive-mcp-pkg-");
  await runtime.installPlugin(await writePackage(dir, "v1", { ...manifest, name: "echoer", version: "0.1.0" }, bytes));
  await defineTestAgent(runtime, "echoing", { plugins: ["echoer"] });
  const client = await connect({ agent: "echoing" });
  try {
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    await client.listTools();
    const before = (await runtime.records.list({})).filter((r) => r.agent === "echoing" && r.status !== "ended").map((r) => r.id);
    assert.equal(before.length, 1);
    await runtime.upgradePlugin("echoer", await writePackage(dir, "v2", { ...manifest, name: "echoer", version: "0.2.0" }, bytes));
    await waitFor(async () => changed > 0, "tools/list_changed arrives");
    await client.listTools();
    const runs = await runtime.records.list({});
    assert.equal(runs.find((r) => r.id === before[0])?.status, "ended", "the first run ended with its tools");
    assert.equal(runs.filter((r) => r.agent === "echoing" && r.status !== "ended").length, 1, "a new run serves the new tools");
  } finally {
    await client.close();
  }
});

const refusals: Array<{ name: string; request: () => Promise<Response>; status: number; code?: string }> = [
  { name: "no token", request: () => initialize({}), status: 401 },
  { name: "an approver token (it may not start runs)", request: () => initialize({ token: token.approver }), status: 403, code: "forbidden" },
  { name: "a rebinding page's Origin", request: () => initialize({ token: token.client, origin: "http://evil.example:7878" }), status: 403, code: "origin_refused" },
  { name: "no agent", request: () => initialize({ token: token.client, agent: "" }), status: 400, code: "invalid_input" },
  { name: "an unknown agent", request: () => initialize({ token: token.client, agent: "ghost" }), status: 404 },
  { name: "an unknown session id", request: () => initialize({ token: token.client, session: "mcp_nope" }), status: 404 },
  { name: "malformed JSON-RPC", request: () => initialize({ token: token.client, body: "{not json" }), status: 400 },
  { name: "a JSON-RPC message that is not a request", request: () => initialize({ token: token.client, body: JSON.stringify({ jsonrpc: "2.0", result: 1 }) }), status: 400 },
  { name: "an oversized message", request: () => initialize({ token: token.client, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { pad: "x".repeat(2 * 1024 * 1024) } }) }), status: 413, code: "body_too_large" },
];

for (const refusal of refusals) {
  test(`/mcp refuses ${refusal.name}`, async () => {
    const response = await refusal.request();
    assert.equal(response.status, refusal.status, await response.clone().text());
    if (refusal.code) assert.equal(((await response.json()) as { error: { code: string } }).error.code, refusal.code);
  });
}

test("/mcp control: a loopback Origin and a client token initialize a session", async () => {
  const response = await initialize({ token: token.client, origin: `http://localhost:${server.port}` });
  assert.equal(response.status, 200, await response.clone().text());
  assert.match(response.headers.get("mcp-session-id") ?? "", /^mcp_/);
  await response.body?.cancel();
});

function initialize(options: { token?: string; origin?: string; agent?: string; session?: string; body?: string }): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.origin) headers.origin = options.origin;
  if (options.session) headers["mcp-session-id"] = options.session;
  const body = options.body ?? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  return fetch(`${server.base}/mcp?agent=${options.agent ?? "writer"}`, { method: "POST", headers, body });
}

async function waitFor<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
