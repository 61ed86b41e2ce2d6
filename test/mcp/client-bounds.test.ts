/**
 * Hostile or broken servers: a call past its deadline, a flood of notifications, a message
 * over the size cap, a line that is not JSON-RPC, a server that exits. Each ends as a clear
 * tool error (the server stopped), the run goes on, and the next call starts the server again.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { testRuntime } from "../helpers/runtime.js";
import { acceptServer, defineMcpAgent, NO_SANDBOX, probeSpec } from "./client-fixtures.js";

test("hang, flood, oversized, malformed: clear tool errors, nothing hangs, the run goes on", { skip: NO_SANDBOX, timeout: 180_000 }, async () => {
  const { runtime, dispose } = await testRuntime({ mcpClient: { bounds: { maxMessageBytes: 64 * 1024, maxNotifications: 50 } } });
  try {
    const tools = ["hang", "flood", "huge", "malformed", "env"];
    const agent = await defineMcpAgent(runtime, "bounded", { probe: probeSpec({ call_timeout_ms: 1500 }) }, { approvals: { lower_risk: tools.map((t) => ({ tool: `probe.${t}`, to: "safe", acknowledged: true })) } });
    await acceptServer(runtime, agent, "probe");
    const run = await runtime.startRun({ agent: "bounded" });
    const cases: Array<{ what: string; tool: string; input: Record<string, unknown>; kind?: string; message?: RegExp }> = [
      { what: "control: a small flood within the cap", tool: "flood", input: { count: 10 } },
      { what: "control: a result within the cap", tool: "huge", input: { bytes: 1000 } },
      { what: "a call that never answers", tool: "hang", input: {}, kind: "mcp-call-timeout", message: /did not answer within 1500 ms; the server was stopped/ },
      { what: "a notification flood", tool: "flood", input: { count: 500 }, kind: "mcp-protocol-error", message: /more than 50 notifications/ },
      { what: "an oversized message", tool: "huge", input: { bytes: 200_000 }, kind: "mcp-protocol-error", message: /over 65536 bytes/ },
      { what: "a line that is not JSON-RPC", tool: "malformed", input: {}, kind: "mcp-protocol-error", message: /malformed JSON-RPC/ },
      { what: "control: the next call starts the server again", tool: "env", input: { name: "HOME" } },
    ];
    for (const c of cases) {
      const outcome = await run.callTool(`probe.${c.tool}`, c.input);
      if (c.kind === undefined) {
        assert.equal(outcome.status, "ok", `${c.what}: ${JSON.stringify(outcome)}`);
        continue;
      }
      assert.equal(outcome.status, "error", c.what);
      assert.equal(outcome.status === "error" && outcome.error.kind, c.kind, `${c.what}: ${JSON.stringify(outcome)}`);
      assert.match(outcome.status === "error" ? outcome.error.message : "", c.message!, c.what);
    }
    const { records } = await runtime.audit.query({ runId: run.id, kind: "tool_call", limit: 100 });
    assert.equal(records.filter((r) => r.status === "intent").length, cases.length, "every call that reached the server has its intent");
    assert.equal(records.filter((r) => r.status === "error").length, 4, "and its outcome");
    await run.end();
  } finally {
    await dispose();
  }
});

test("a server that cannot start is a clear error, not a hang", { skip: NO_SANDBOX, timeout: 60_000 }, async () => {
  const { runtime, dispose } = await testRuntime();
  try {
    const agent = await defineMcpAgent(runtime, "broken", { probe: probeSpec({ args: ["/nonexistent/server.mjs"] }) });
    await assert.rejects(runtime.mcpClient.review(agent, "probe"), (e: Error & { code?: string }) => e.code === "mcp_server_unavailable" && /exited/.test(e.message));
  } finally {
    await dispose();
  }
});
