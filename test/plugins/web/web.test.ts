import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime } from "../../../runtime/index.js";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { testRuntime } from "../../helpers/runtime.js";

const WEB = join(PROJECT_ROOT, "plugins", "web");
const SECRET = "sk_test_5ecre7_never_shown";
let runtime: Runtime;
let dispose: () => Promise<void>;
let server: Server;
let port = 0;
const seen: IncomingHttpHeaders[] = [];

before(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    if (req.url === "/page") {
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end("<html><body><h1>Release notes</h1><p>Fixed <a href='/x'>a bug</a>.</p><script>steal()</script></body></html>");
    } else if (req.url === "/echo") {
      res.setHeader("content-type", "text/plain");
      res.end(`you sent: ${req.headers.authorization ?? "nothing"}`);
    } else {
      res.statusCode = 404;
      res.end("not here");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  ({ runtime, dispose } = await testRuntime({ pluginDirs: [WEB] }));
  await runtime.setSecret("local-token", SECRET);
  await runtime.defineAgent({
    name: "reader",
    description: "reads the local test site",
    model: { provider: "anthropic", id: "m" },
    system_prompt: "x",
    plugins: [{ name: "web", version: "*" }],
    grants: {
      "http.fetch": {
        schemes: ["http"],
        hosts: ["127.0.0.1"],
        ports: [port],
        allow_addresses: ["127.0.0.1"],
        credentials: [{ host: "127.0.0.1", secret: "local-token" }],
      },
    },
    approvals: { lower_risk: [{ tool: "web.fetch_page", to: "safe", acknowledged: true }] },
  });
});
after(async () => {
  await dispose();
  await new Promise((resolve) => server.close(resolve));
});

test("fetch_page returns Markdown, scripts dropped", async () => {
  const run = await runtime.startRun({ agent: "reader" });
  const outcome = await run.callTool("web.fetch_page", { url: `http://127.0.0.1:${port}/page` });
  assert.equal(outcome.status, "ok", JSON.stringify(outcome));
  const content = (outcome as { output: { content: string } }).output.content;
  assert.match(content, /# Release notes/);
  assert.match(content, /\[a bug\]\(\/x\)/);
  assert.doesNotMatch(content, /steal/);
  await run.end();
});

test("the host adds the credential; the plugin and the model only see it redacted", async () => {
  const run = await runtime.startRun({ agent: "reader" });
  const outcome = await run.callTool("web.fetch_page", { url: `http://127.0.0.1:${port}/echo`, format: "raw" });
  const content = (outcome as { output: { content: string } }).output.content;
  assert.equal(seen.at(-1)?.authorization, `Bearer ${SECRET}`, "the server received the secret");
  assert.ok(!content.includes(SECRET));
  assert.match(content, /\[REDACTED\]/);
  const { records } = await runtime.audit.query({ runId: run.id, limit: 50 });
  assert.ok(!JSON.stringify(records).includes(SECRET), "nor is it in the audit log");
  await run.end();
});

const refused: Array<[string, string]> = [
  ["cloud metadata", "http://169.254.169.254/latest/meta-data/"],
  ["loopback in hex", `http://0x7f000001:${port}/page`],
  ["another port", "http://127.0.0.1:1/page"],
  ["a host not granted", "https://example.com/"],
];
for (const [name, url] of refused) {
  test(`fetch_page is refused: ${name}`, async () => {
    const run = await runtime.startRun({ agent: "reader" });
    const outcome = await run.callTool("web.fetch_page", { url });
    assert.equal(outcome.status, "error");
    assert.equal((outcome as { error: { kind: string } }).error.kind, "denied", JSON.stringify(outcome));
    await run.end();
  });
}

test("a plugin calling a proxy its agent was not granted gets a structured denial and one audit record", async () => {
  await runtime.defineAgent({
    name: "offline",
    description: "has the web plugin but no network grant",
    model: { provider: "anthropic", id: "m" },
    system_prompt: "x",
    plugins: [{ name: "web", version: "*" }],
    grants: {},
    approvals: { lower_risk: [{ tool: "web.fetch_page", to: "safe", acknowledged: true }] },
  });
  const run = await runtime.startRun({ agent: "offline" });
  const before = seen.length;
  const outcome = await run.callTool("web.fetch_page", { url: `http://127.0.0.1:${port}/page` });
  assert.equal(outcome.status, "error");
  const denial = (outcome as { error: { denial: { capability: string; reason: string } } }).error.denial;
  assert.deepEqual({ capability: denial.capability, reason: denial.reason }, { capability: "http.fetch", reason: "not-granted" });
  assert.equal(seen.length, before, "nothing reached the server");
  const { records } = await runtime.audit.query({ runId: run.id, kind: "host_call", limit: 10 });
  assert.deepEqual(records.map((r) => [r.status, r.denial?.reason]), [["denied", "not-granted"]]);
  await run.end();
});
