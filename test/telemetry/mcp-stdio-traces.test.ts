/**
 * `clawhive mcp serve` launched as Claude Desktop or Cursor launch it (the SDK's stdio client
 * spawning the shipped command) with tracing on: one SERVER span per request, per the
 * OpenTelemetry MCP semantic conventions, its parent the trace context the client put in
 * `params._meta` (a malformed one ignored: the span is then under the session's run), the
 * ToolCall under it, and the ToolCall's log line naming its span.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BIN } from "../cli/fixtures.js";
import { SPAN_KIND, type ReceivedSpan } from "../helpers/otlp-collector.js";
import { received, tracedPlace, type TracedPlace } from "./cli-fixtures.js";

let place: TracedPlace;
let stderr = "";
const caller = { traceId: randomBytes(16).toString("hex"), spanId: randomBytes(8).toString("hex") };
const malformed = { traceId: randomBytes(16).toString("hex"), spanId: randomBytes(8).toString("hex") };
const TRACESTATE = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE";

before(async () => {
  place = await tracedPlace("clawhive-mcp-traces-");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "serve", "--agent", "writer", "--agents", place.agents, "--data-dir", place.data],
    env: { ...place.env, CLAWHIVE_LOG_LEVEL: "debug" },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: "trace-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    await client.listTools();
    const read = await client.callTool({ name: "files__read_file", arguments: { path: "/workspace/a.txt" }, _meta: { traceparent: `00-${caller.traceId}-${caller.spanId}-01`, tracestate: TRACESTATE } });
    assert.notEqual(read.isError, true, JSON.stringify(read));
    const missing = await client.callTool({ name: "files__no_such_tool", arguments: {}, _meta: { traceparent: `00-${malformed.traceId.toUpperCase()}-${malformed.spanId}-01` } });
    assert.equal(missing.isError, true);
  } finally {
    await client.close();
  }
  // The session's run ends when the client disconnects; its span is the last one sent.
  await received(place.collector, "invoke_agent writer");
});
after(async () => {
  await place.collector.close();
  await rm(place.root, { recursive: true, force: true });
});

const one = (name: string): ReceivedSpan => place.collector.one(name);

test("a tools/call is a SERVER span named `tools/call <tool>` with the MCP attributes, under the client's _meta trace context", () => {
  const span = one("tools/call files__read_file");
  assert.equal(span.kind, SPAN_KIND.SERVER);
  assert.equal(span.traceId, caller.traceId);
  assert.equal(span.parentSpanId, caller.spanId);
  assert.equal(span.traceState, TRACESTATE, "tracestate from _meta is kept");
  const a = span.attributes;
  assert.equal(a["mcp.method.name"], "tools/call");
  assert.equal(a["gen_ai.tool.name"], "files__read_file");
  assert.equal(a["gen_ai.operation.name"], "execute_tool");
  assert.equal(a["network.transport"], "pipe");
  assert.match(String(a["mcp.session.id"]), /^mcp_[0-9a-f-]{36}$/);
  assert.match(String(a["mcp.protocol.version"]), /^\d{4}-\d{2}-\d{2}$/);
  assert.match(String(a["jsonrpc.request.id"]), /^\d+$/);
  assert.equal(a["error.type"], undefined);
  assert.notEqual(span.status.code, 2);
});

test("the ToolCall is the SERVER span's child, in the client's trace, linked to the session's run", () => {
  const server = one("tools/call files__read_file");
  const run = one("invoke_agent writer");
  const tool = one("execute_tool files.read_file");
  assert.equal(tool.parentSpanId, server.spanId);
  assert.equal(tool.traceId, caller.traceId);
  assert.deepEqual(tool.links, [{ traceId: run.traceId, spanId: run.spanId }]);
  assert.ok(place.collector.named("host ").every((h) => h.parentSpanId === tool.spanId));
});

test("control: a malformed _meta traceparent is ignored, the request is under the session's run; a tool error is error.type tool_error", () => {
  const span = one("tools/call files__no_such_tool");
  const run = one("invoke_agent writer");
  assert.ok(place.collector.spans.every((s) => s.traceId !== malformed.traceId.toLowerCase() && s.parentSpanId !== malformed.spanId));
  assert.equal(span.traceId, run.traceId);
  assert.equal(span.parentSpanId, run.spanId);
  assert.equal(span.attributes["error.type"], "tool_error");
  assert.equal(span.status.code, 2, "status ERROR");
});

test("every request is a span of its method, initialize and tools/list included, all with the session's id", () => {
  const initialize = one("initialize");
  const list = one("tools/list");
  const call = one("tools/call files__read_file");
  for (const span of [initialize, list]) assert.equal(span.kind, SPAN_KIND.SERVER);
  assert.equal(initialize.attributes["mcp.protocol.version"], call.attributes["mcp.protocol.version"]);
  assert.equal(new Set([initialize, list, call].map((s) => s.attributes["mcp.session.id"])).size, 1);
  assert.equal(list.attributes["gen_ai.operation.name"], undefined, "only a tool call is execute_tool");
});

test("the ToolCall's log line names its run, its trace and its span", () => {
  const tool = one("execute_tool files.read_file");
  const lines = stderr.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
  const line = lines.find((l) => l.msg === "tool call" && l.tool === "files.read_file");
  assert.ok(line, stderr);
  assert.equal(line.span_id, tool.spanId);
  assert.equal(line.trace_id, tool.traceId);
  assert.equal(line.run_id, one("invoke_agent writer").attributes["clawhive.run.id"]);
});
