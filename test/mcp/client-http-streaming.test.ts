/**
 * A streamable-HTTP MCP server built with the SDK, reached through the http proxy: its answers
 * are read as they stream, so a server that asks the client something mid-call (ping,
 * elicitation, sampling, roots/list) and sends progress is answered at once — as over stdio:
 * ping answered, the rest refused (the client offers none of them) — and the call completes.
 * Tool schemas are validated in the dialect they declare (zod 4's 2020-12 output; 2020-12 when
 * they declare none, as MCP says), inputs and structured outputs alike; a tool whose schema
 * cannot be used is named at review and never offered. In process and through the CLI.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { stringify } from "yaml";
import type { Runtime } from "../../runtime/index.js";
import { clawhiveAsync, cliPlace } from "../cli/fixtures.js";
import { streamingMcpServer } from "../helpers/mcp-streaming.js";
import { testRuntime } from "../helpers/runtime.js";

let remote: Awaited<ReturnType<typeof streamingMcpServer>>;
before(async () => {
  remote = await streamingMcpServer();
});
after(() => remote.close());

const TOOLS = ["shape", "bare", "pair", "chatty"];

function manifest(name: string, options: { credential?: boolean } = {}): Record<string, unknown> {
  // A credential makes the proxy redact it from the stream (holding back what could begin it).
  const credentials = options.credential ? { credentials: [{ host: "127.0.0.1", secret: "remote-token" }] } : {};
  return {
    name,
    description: "streaming MCP client test agent",
    model: { provider: "anthropic", id: "test-model" },
    system_prompt: "test",
    grants: { log: {}, "http.fetch": { schemes: ["http"], hosts: ["127.0.0.1"], ports: [remote.port], methods: ["POST", "DELETE"], allow_addresses: ["127.0.0.1"], ...credentials } },
    // A short deadline: a call that deadlocks fails within it instead of hanging the suite.
    mcp_servers: { remote: { url: `http://127.0.0.1:${remote.port}/mcp`, call_timeout_ms: 15_000 } },
    approvals: { lower_risk: TOOLS.map((t) => ({ tool: `remote.${t}`, to: "safe", acknowledged: true })) },
  };
}

const point = { x: 1, y: 2 };
const valid = { name: "box", corner: [1, "top"], origin: point, end: point };
const invalid: Array<[string, Record<string, unknown>, RegExp]> = [
  ["a tuple item of the wrong type (prefixItems)", { ...valid, corner: [1, 2] }, /input\.corner\[1\]: must be string/],
  ["a tuple too long (items: false)", { ...valid, corner: [1, "top", 3] }, /input\.corner/],
  ["a bad $defs reference target", { ...valid, origin: { x: "1", y: 2 } }, /input\.origin\.x: must be number/],
  ["a property not evaluated (unevaluatedProperties)", { ...valid, extra: true }, /unevaluated properties/],
  ["a dependent property missing (dependentRequired)", { ...valid, a: "x" }, /input\.b|property b/],
];

async function callOutput(runtime: Runtime, agent: string, tool: string, input: Record<string, unknown>) {
  const run = await runtime.startRun({ agent });
  try {
    return await run.callTool(tool, input);
  } finally {
    await run.end();
  }
}

test("in process: reviewed with the uncallable tools named; 2020-12 inputs and outputs validated; a chatty call completes", { timeout: 120_000 }, async () => {
  const { runtime, dispose } = await testRuntime();
  try {
    await runtime.secrets.set("remote-token", "tok-streaming-123");
    const agent = await runtime.defineAgent(manifest("streamer", { credential: true }));
    const review = await runtime.mcpClient.review(agent, "remote");
    assert.deepEqual(review.diff.added.sort(), [...TOOLS].sort());
    const skipped = new Map(review.skipped.map((s) => [s.mcpName, s.reason]));
    assert.match(skipped.get("broken") ?? "", /cannot be called: .*does not compile as JSON Schema 2020-12/);
    assert.match(skipped.get("alien") ?? "", /cannot be called: .*my-dialect.* names a JSON Schema dialect clawhive cannot validate/);
    await runtime.mcpClient.accept(agent, "remote", { diffHash: review.diff.hash, by: "alice" });

    for (const tool of ["remote.shape", "remote.bare"]) {
      const ok = await callOutput(runtime, "streamer", tool, valid);
      assert.equal(ok.status, "ok", `${tool}: ${JSON.stringify(ok)}`);
      for (const [what, input, message] of invalid) {
        const refused = await callOutput(runtime, "streamer", tool, input);
        assert.equal(refused.status, "error", `${tool}, ${what}`);
        assert.equal(refused.status === "error" && refused.error.kind, "invalid-input", `${tool}, ${what}: ${JSON.stringify(refused)}`);
        assert.match(refused.status === "error" ? refused.error.message : "", message, `${tool}, ${what}`);
      }
    }

    const pair = await callOutput(runtime, "streamer", "remote.pair", { valid: true });
    assert.deepEqual(pair.status === "ok" && pair.output, { p: [1, "one"] });
    const badPair = await callOutput(runtime, "streamer", "remote.pair", { valid: false });
    assert.equal(badPair.status, "error", "a structured result its 2020-12 output schema refuses is refused");
    assert.match(badPair.status === "error" ? badPair.error.message : "", /output schema.*result\.p\[0\]: must be number/);

    const chatty = await callOutput(runtime, "streamer", "remote.chatty", {});
    assert.equal(chatty.status, "ok", JSON.stringify(chatty));
    const got = JSON.parse(String(chatty.status === "ok" && chatty.output)) as Record<string, string>;
    assert.deepEqual(got, { ping: "answered", elicitation: "refused -32601", sampling: "refused -32601", roots: "refused -32601" });
  } finally {
    await dispose();
  }
});

test("the CLI: clawhive mcp review names the uncallable tools; clawhive call runs a chatty call and refuses an invalid input", { timeout: 300_000 }, async () => {
  const place = await cliPlace("clawhive-mcp-stream-cli-");
  await writeFile(join(place.agents, "streamer.yaml"), stringify(manifest("streamer")));
  const common = ["--agents", place.agents];
  const review = await clawhiveAsync(place, ["mcp", "review", "streamer", "remote", "--accept", ...common]);
  assert.equal(review.code, 0, review.stderr);
  assert.match(review.stderr, /not offered: broken: it cannot be called: .*does not compile/);
  assert.match(review.stderr, /not offered: alien: it cannot be called: .*dialect/);
  assert.match(review.stderr, /accepted: 4 tools of remote/);

  const chatty = await clawhiveAsync(place, ["call", "remote.chatty", "{}", "--agent", "streamer", ...common]);
  assert.equal(chatty.code, 0, chatty.stderr);
  assert.match(chatty.stdout, /"ping":"answered"/);
  const shape = await clawhiveAsync(place, ["call", "remote.shape", JSON.stringify(valid), "--agent", "streamer", ...common]);
  assert.equal(shape.code, 0, shape.stderr);
  const bad = await clawhiveAsync(place, ["call", "remote.shape", JSON.stringify({ ...valid, corner: [1, 2] }), "--agent", "streamer", ...common]);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /corner\[1\]: must be string/);
});
