/**
 * A credential the host attaches to a request (grants.http.fetch `credentials`) reaches a server
 * the plugin talks to, or a streamable HTTP MCP server: either may answer with it changed. The
 * ToolCalls that sent one are in the run's report (names, never values), and with
 * `secrets.refuse_transformed_outputs` an answer holding it reversed is refused as the tool's
 * error `secret_in_output`; each beside a control that passes.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { remoteMcpServer } from "../helpers/mcp-remote.js";
import { testRuntime } from "../helpers/runtime.js";
import { acceptServer, defineMcpAgent } from "../mcp/client-fixtures.js";

const WASI_PROBE = join(PROJECT_ROOT, "test", "plugins", "wasi-probe");
const SECRET = "tok-Live-7f3K9qZx2Wm";
const reverse = (s: string) => [...s].reverse().join("");

let runtime: Runtime;
let dispose: () => Promise<void>;
let site: Server;
let port: number;

function grantFor(serverPort: number) {
  return { schemes: ["http"], hosts: ["127.0.0.1"], ports: [serverPort], methods: ["GET", "POST", "DELETE"], allow_addresses: ["127.0.0.1"], credentials: [{ host: "127.0.0.1", secret: "site-token" }] };
}

before(async () => {
  // `/mirror` answers with the Authorization header reversed; `/plain` with a fixed text.
  site = createServer((req, res) => {
    res.setHeader("content-type", "text/plain");
    res.end(req.url === "/mirror" ? reverse(String(req.headers.authorization ?? "")) : "nothing to see");
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  port = (site.address() as AddressInfo).port;
  ({ runtime, dispose } = await testRuntime({ pluginDirs: [WASI_PROBE], sandbox: { callTimeoutMs: 20_000 } }));
  await runtime.setSecret("site-token", SECRET);
  for (const strict of [true, false]) {
    await runtime.defineAgent({
      name: strict ? "fetch-strict" : "fetch-lenient",
      description: "fetches with a host-attached credential",
      model: { provider: "anthropic", id: "test-model" },
      system_prompt: "test",
      plugins: [{ name: "wasi-probe", version: "*" }],
      grants: { log: {}, "http.fetch": grantFor(port) },
      approvals: { lower_risk: [{ tool: "wasi-probe.fetch", to: "safe", acknowledged: true }] },
      ...(strict ? { secrets: { refuse_transformed_outputs: true } } : {}),
    });
  }
});
after(async () => {
  await dispose?.();
  await new Promise((resolve) => site.close(resolve));
});

test("a plugin's fetch answered with its credential reversed is refused; control: a fetch of the same host answered without it", async () => {
  const run = await runtime.startRun({ agent: "fetch-strict" });
  const refused = await run.callTool("wasi-probe.fetch", { url: `http://127.0.0.1:${port}/mirror` });
  assert.equal(refused.status === "error" && refused.error.kind, "secret_in_output", JSON.stringify(refused));
  assert.ok(!JSON.stringify(refused).includes(reverse(SECRET)));
  const control = await run.callTool("wasi-probe.fetch", { url: `http://127.0.0.1:${port}/plain` });
  assert.deepEqual(control.status === "ok" && control.output, { status: 200, body: "nothing to see" });
  const report = await run.end();
  assert.deepEqual(report.secretsRead, [
    { toolCallId: refused.id, tool: "wasi-probe.fetch", secrets: ["site-token"] },
    { toolCallId: control.id, tool: "wasi-probe.fetch", secrets: ["site-token"] },
  ]);
});

test("control: without the setting the reversed credential passes, and the report still names the ToolCall that sent it", async () => {
  const run = await runtime.startRun({ agent: "fetch-lenient" });
  const passed = await run.callTool("wasi-probe.fetch", { url: `http://127.0.0.1:${port}/mirror` });
  assert.deepEqual(passed.status === "ok" && passed.output, { status: 200, body: reverse(`Bearer ${SECRET}`) });
  const report = await run.end();
  assert.deepEqual(report.secretsRead, [{ toolCallId: passed.id, tool: "wasi-probe.fetch", secrets: ["site-token"] }]);
});

test("an HTTP MCP server answering with its credential reversed is refused; control: its other tool passes", { timeout: 120_000 }, async () => {
  const remote = await remoteMcpServer({ mirror: true });
  try {
    const lower = ["add", "whoami", "whoami_reversed"].map((t) => ({ tool: `remote.${t}`, to: "safe", acknowledged: true }));
    const agent = await defineMcpAgent(runtime, "remote-strict", { remote: { url: `http://127.0.0.1:${remote.port}/mcp` } }, {
      grants: { log: {}, "http.fetch": grantFor(remote.port) },
      approvals: { lower_risk: lower },
      secrets: { refuse_transformed_outputs: true },
    });
    await acceptServer(runtime, agent, "remote");
    const run = await runtime.startRun({ agent: "remote-strict" });
    const exact = await run.callTool("remote.whoami", {});
    assert.equal(exact.status === "ok" && exact.output, "Bearer [REDACTED]");
    const refused = await run.callTool("remote.whoami_reversed", {});
    assert.equal(refused.status === "error" && refused.error.kind, "secret_in_output", JSON.stringify(refused));
    const control = await run.callTool("remote.add", { a: 2, b: 40 });
    assert.equal(control.status === "ok" && control.output, "42");
    const report = await run.end();
    assert.deepEqual(report.secretsRead.map((r) => [r.tool, r.secrets]), [["remote.whoami", ["site-token"]], ["remote.whoami_reversed", ["site-token"]], ["remote.add", ["site-token"]]]);
  } finally {
    remote.server.close();
  }
});
