/**
 * W3C `traceparent` on `/mcp`: an MCP session's run continues the caller's trace; a `tools/call`
 * made under another trace joins that one (its SERVER span under the caller's span, the ToolCall
 * under it, linked to the run), as does one whose `params._meta` names a trace; a
 * malformed header is ignored (the call works, in a trace of its own); an unsampled caller gets
 * no spans recorded.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SpanKind } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import type { Runtime } from "../../runtime/index.js";
import { McpHttpSessions } from "../../runtime/mcp/index.js";
import { startTracing, stopTracing } from "../../runtime/telemetry/tracing.js";
import { defineTestAgent, testRuntime } from "../helpers/runtime.js";
import { listen, type Listening } from "../api/fixtures.js";

const exporter = new InMemorySpanExporter();
let runtime: Runtime;
let dispose: () => Promise<void>;
let server: Listening;
let sessions: McpHttpSessions;
let token = "";

before(async () => {
  await startTracing({ exporter });
  const made = await testRuntime();
  runtime = made.runtime;
  dispose = made.dispose;
  const docs = join(made.dataDir, "docs");
  await mkdir(docs);
  await writeFile(join(docs, "a.txt"), "alpha");
  await defineTestAgent(runtime, "reader", { mounts: [{ guest: "/docs", host: docs }] });
  const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
  token = (await tokens.create("client")).token;
  sessions = new McpHttpSessions(runtime, { version: "test" });
  server = await listen(createApp({ runtime, tokens, version: "test", mcp: sessions }));
});
after(async () => {
  await sessions.close();
  await server.close();
  await dispose();
  await stopTracing();
});
beforeEach(() => exporter.reset());

const newTrace = () => ({ traceId: randomBytes(16).toString("hex"), spanId: randomBytes(8).toString("hex") });
const header = (t: { traceId: string; spanId: string }, flags = "01") => `00-${t.traceId}-${t.spanId}-${flags}`;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const named = (prefix: string) => exporter.getFinishedSpans().filter((s) => s.name.startsWith(prefix));

interface Session {
  readonly client: Client;
  /** The session's Mcp-Session-Id. */
  id(): string | undefined;
  /** Ends the session (and so its run). */
  close(): Promise<void>;
}

/** A session whose requests carry `headers.traceparent` as it is when each is sent. */
async function connect(headers: Record<string, string>): Promise<Session> {
  const client = new Client({ name: "trace-test", version: "1.0.0" });
  const requestInit = { headers: Object.assign(headers, { authorization: `Bearer ${token}` }) };
  const transport = new StreamableHTTPClientTransport(new URL(`${server.base}/mcp?agent=reader`), { requestInit });
  await client.connect(transport);
  return {
    client,
    id: () => transport.sessionId,
    close: async () => {
      await transport.terminateSession();
      await client.close();
    },
  };
}

async function readFile({ client }: Session): Promise<void> {
  const result = await client.callTool({ name: "files__read_file", arguments: { path: "/docs/a.txt" } });
  assert.notEqual(result.isError, true, JSON.stringify(result));
}

test("a session started under the caller's traceparent: its run and every tool call's spans are in the caller's trace", async () => {
  const caller = newTrace();
  const session = await connect({ traceparent: header(caller) });
  try {
    await readFile(session);
    const [tool] = named("execute_tool files.read_file");
    assert.ok(tool, exporter.getFinishedSpans().map((s) => s.name).join(", "));
    assert.equal(tool.spanContext().traceId, caller.traceId);
    const hosts = named("host ");
    assert.ok(hosts.length > 0 && hosts.every((h) => h.spanContext().traceId === caller.traceId && parentOf(h) === tool.spanContext().spanId));
  } finally {
    await session.close();
  }
  const [root] = named("invoke_agent reader");
  assert.ok(root, "the session's run ends with the session");
  assert.equal(root.spanContext().traceId, caller.traceId);
  assert.equal(parentOf(root), caller.spanId, "the run continues the caller's span");
});

test("a tools/call under another trace than the session's joins that trace: its SERVER span under the caller's span, the ToolCall under it, linked to the run", async () => {
  const first = newTrace();
  const headers: Record<string, string> = { traceparent: header(first) };
  const session = await connect(headers);
  try {
    await readFile(session);
    const second = newTrace();
    headers.traceparent = header(second);
    exporter.reset();
    await readFile(session);
    const [server] = named("tools/call files__read_file");
    const [tool] = named("execute_tool files.read_file");
    assert.ok(server && tool, exporter.getFinishedSpans().map((s) => s.name).join(", "));
    assert.equal(server.kind, SpanKind.SERVER);
    assert.equal(server.spanContext().traceId, second.traceId);
    assert.equal(parentOf(server), second.spanId);
    assert.equal(server.attributes["network.transport"], "tcp");
    assert.equal(server.attributes["network.protocol.name"], "http");
    assert.equal(server.attributes["mcp.session.id"], session.id(), "the Mcp-Session-Id");
    assert.equal(tool.spanContext().traceId, second.traceId);
    assert.equal(parentOf(tool), server.spanContext().spanId);
    assert.deepEqual(tool.links.map((l) => l.context.traceId), [first.traceId], "linked to the session's run");
    const hosts = named("host ");
    assert.ok(hosts.length > 0 && hosts.every((h) => h.spanContext().traceId === second.traceId && parentOf(h) === tool.spanContext().spanId));
  } finally {
    await session.close();
  }
});

test("over HTTP, a _meta traceparent is the SERVER span's parent and the request's own traceparent a link; control: without _meta the request's is the parent", async () => {
  const transportTrace = newTrace();
  const session = await connect({ traceparent: header(transportTrace) });
  try {
    exporter.reset();
    await readFile(session);
    const [plain] = named("tools/call files__read_file");
    assert.equal(parentOf(plain!), transportTrace.spanId);
    assert.deepEqual(plain!.links, []);
    exporter.reset();
    const meta = newTrace();
    const result = await session.client.callTool({ name: "files__read_file", arguments: { path: "/docs/a.txt" }, _meta: { traceparent: header(meta) } });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    const [server] = named("tools/call files__read_file");
    assert.equal(server!.spanContext().traceId, meta.traceId);
    assert.equal(parentOf(server!), meta.spanId);
    assert.deepEqual(server!.links.map((l) => l.context.spanId), [transportTrace.spanId]);
    const [tool] = named("execute_tool files.read_file");
    assert.equal(parentOf(tool!), server!.spanContext().spanId);
  } finally {
    await session.close();
  }
});

/** Each is ignored as the W3C specification asks: the request starts a trace of its own. */
const MALFORMED: ReadonlyArray<[string, (t: { traceId: string; spanId: string }) => string]> = [
  ["upper-case hex", (t) => header(t).toUpperCase()],
  ["all-zero trace id", (t) => `00-${"0".repeat(32)}-${t.spanId}-01`],
  ["all-zero parent id", (t) => `00-${t.traceId}-${"0".repeat(16)}-01`],
  ["version ff", (t) => `ff-${t.traceId}-${t.spanId}-01`],
  ["short trace id", (t) => `00-${t.traceId.slice(2)}-${t.spanId}-01`],
  ["extra field on version 00", (t) => `${header(t)}-extra`],
  ["not hex", (t) => `00-${t.traceId.slice(1)}g-${t.spanId}-01`],
  ["missing flags", (t) => `00-${t.traceId}-${t.spanId}`],
  // A later version may add fields, but not past the 512 characters a receiver must read.
  ["oversized", (t) => `01-${t.traceId}-${t.spanId}-01-${"a".repeat(600)}`],
];

for (const [name, make] of MALFORMED) {
  test(`a malformed traceparent (${name}) is ignored: the call works, in a trace of its own`, async () => {
    const caller = newTrace();
    const session = await connect({ traceparent: make(caller) });
    try {
      await readFile(session);
    } finally {
      await session.close();
    }
    const spans = exporter.getFinishedSpans();
    const [tool] = named("execute_tool files.read_file");
    assert.ok(tool, "the tool call is traced");
    assert.ok(spans.every((s) => s.spanContext().traceId !== caller.traceId && parentOf(s) !== caller.spanId), "nothing joins the malformed trace");
    const [root] = named("invoke_agent reader");
    assert.ok(root);
    assert.equal(parentOf(root), undefined, "the run's span is a root");
    assert.equal(tool.spanContext().traceId, root.spanContext().traceId);
  });
}

test("an unsampled caller (flags 00): the call works and nothing of it is recorded; control: sampled (01) is", async () => {
  for (const [flags, recorded] of [["00", false], ["01", true]] as const) {
    exporter.reset();
    const caller = newTrace();
    const session = await connect({ traceparent: header(caller, flags) });
    try {
      await readFile(session);
    } finally {
      await session.close();
    }
    const ours = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === caller.traceId);
    assert.equal(ours.length > 0, recorded, `flags ${flags}: ${ours.map((s) => s.name).join(", ")}`);
  }
});
