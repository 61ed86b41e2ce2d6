/**
 * A streamable HTTP MCP server, reached through the http proxy under the agent's http.fetch
 * grant (allow-list, address vetting, host-attached credentials), reviewed and accepted through
 * the API (`/v1/agents/{name}/mcp-servers/{server}`), then called as a ToolCall. Manifests whose
 * URL the grant does not allow are refused with the field named; a loopback address the grant
 * does not list is refused by the SSRF defences.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import { remoteMcpServer as remoteServer } from "../helpers/mcp-remote.js";
import { testRuntime } from "../helpers/runtime.js";
import { jsonCall, listen } from "../api/fixtures.js";

function httpAgent(name: string, port: number, grant: Record<string, unknown>): string {
  return JSON.stringify({
    name,
    description: "HTTP MCP client test agent",
    model: { provider: "anthropic", id: "test-model" },
    system_prompt: "test",
    grants: { log: {}, "http.fetch": grant },
    mcp_servers: { remote: { url: `http://127.0.0.1:${port}/mcp` } },
    approvals: { lower_risk: ["add", "whoami"].map((t) => ({ tool: `remote.${t}`, to: "safe", acknowledged: true })) },
  });
}

test("HTTP server: through the proxy, reviewed and accepted by API, credential attached, refusals named", { timeout: 120_000 }, async () => {
  const remote = await remoteServer();
  const { runtime, dispose } = await testRuntime();
  const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
  const admin = (await tokens.create("admin")).token;
  const api = await listen(createApp({ runtime, tokens, version: "test" }));
  const put = (name: string, text: string) =>
    fetch(`${api.base}/v1/agents/${name}`, { method: "PUT", headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" }, body: text }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
  try {
    await runtime.secrets.set("remote-token", "tok-123");
    const grant = { schemes: ["http"], hosts: ["127.0.0.1"], ports: [remote.port], methods: ["POST", "DELETE"], allow_addresses: ["127.0.0.1"], credentials: [{ host: "127.0.0.1", secret: "remote-token" }] };
    assert.equal((await put("remote", httpAgent("remote", remote.port, grant))).status, 201);

    // Manifests the grant does not cover are refused at PUT, naming the field.
    const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
      ["host not in hosts", { ...grant, hosts: ["api.example.com"] }, /127\.0\.0\.1 is not in grants\.http\.fetch\.hosts/],
      ["no POST", { ...grant, methods: ["GET"] }, /POSTs its messages/],
      ["scheme not allowed", { ...grant, schemes: ["https"] }, /http is not in grants\.http\.fetch\.schemes/],
    ];
    for (const [what, bad, message] of refusals) {
      const answer = await put("bad", httpAgent("bad", remote.port, bad));
      assert.equal(answer.status, 400, what);
      assert.equal(answer.body.error.field, "body.mcp_servers.remote.url", what);
      assert.match(answer.body.error.message, message, what);
    }

    const path = "/v1/agents/remote/mcp-servers/remote";
    const reviewed = await jsonCall(api.base, "GET", path, { token: admin });
    assert.equal(reviewed.status, 200, JSON.stringify(reviewed.body));
    assert.deepEqual(reviewed.body.review.diff.added, ["add", "whoami"]);
    assert.equal(reviewed.body.review.pinned, null);
    const stale = await jsonCall(api.base, "POST", `${path}/accept`, { token: admin, body: { diff_hash: "0".repeat(64) } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.error.code, "mcp_definitions_changed");
    assert.equal((await jsonCall(api.base, "POST", `${path}/accept`, { token: admin, body: { diff_hash: "nope" } })).status, 400);
    assert.equal((await jsonCall(api.base, "GET", "/v1/agents/remote/mcp-servers/ghost", { token: admin })).status, 404);
    const accepted = await jsonCall(api.base, "POST", `${path}/accept`, { token: admin, body: { diff_hash: reviewed.body.review.diff.hash } });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.deepEqual(accepted.body.review.pinned.tools, ["add", "whoami"]);

    const tools = await jsonCall(api.base, "GET", "/v1/tools?agent=remote", { token: admin });
    assert.deepEqual(tools.body.tools.map((t: { name: string }) => t.name).sort(), ["remote.add", "remote.whoami"]);

    const run = await runtime.startRun({ agent: "remote" });
    const sum = await run.callTool("remote.add", { a: 2, b: 40 });
    assert.equal(sum.status === "ok" && sum.output, "42", JSON.stringify(sum));
    const who = await run.callTool("remote.whoami", {});
    assert.equal(who.status === "ok" && who.output, "Bearer [REDACTED]", "the grant's credential was attached by the proxy, and its echo redacted before the model sees it");
    await run.end();

    // The same server on loopback, without allow_addresses: the proxy's SSRF defence refuses it.
    const before = remote.requests();
    assert.equal((await put("ssrf", httpAgent("ssrf", remote.port, { ...grant, allow_addresses: [] }))).status, 201);
    const ssrf = await jsonCall(api.base, "GET", "/v1/agents/ssrf/mcp-servers/remote", { token: admin });
    assert.equal(ssrf.status, 502, JSON.stringify(ssrf.body));
    assert.match(ssrf.body.error.message, /127\.0\.0\.1|loopback|private/i);
    assert.equal(remote.requests(), before, "nothing reached the server");
  } finally {
    await api.close();
    await dispose();
    remote.server.close();
  }
});
