/**
 * A redirect hop the policy or the proxy refuses is its own `denied` audit record (beside the
 * fetch's error outcome); a hop that is followed is not. And a granted server that echoes the
 * attached secret re-encoded shows the plugin only `[REDACTED]`.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { testRuntime } from "../helpers/runtime.js";

const SECRET = "sk_test_R3d1rect_and_Echo_0042";
let runtime: Runtime;
let dispose: () => Promise<void>;
let server: Server;
let port = 0;

before(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const auth = req.headers.authorization ?? "";
    if (url.pathname === "/to") {
      res.statusCode = 302;
      res.setHeader("location", url.searchParams.get("u") ?? "/");
      return res.end();
    }
    if (url.pathname === "/loop") {
      res.statusCode = 302;
      res.setHeader("location", "/loop");
      return res.end();
    }
    const echoes: Record<string, string> = {
      "/b64": Buffer.from(auth).toString("base64"),
      "/b64url": Buffer.from(`x${auth}`).toString("base64url"),
      "/hex": Buffer.from(auth).toString("hex").toUpperCase(),
      "/pct": encodeURIComponent(auth),
    };
    res.setHeader("content-type", "text/plain");
    res.end(echoes[url.pathname] !== undefined ? `echo ${echoes[url.pathname]}` : "plain page");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  ({ runtime, dispose } = await testRuntime({ pluginDirs: [join(PROJECT_ROOT, "plugins", "web")] }));
  await runtime.setSecret("local-token", SECRET);
  await runtime.defineAgent({
    name: "reader",
    description: "reads the local test site",
    model: { provider: "anthropic", id: "m" },
    system_prompt: "x",
    plugins: [{ name: "web", version: "*" }],
    grants: {
      "http.fetch": { schemes: ["http"], hosts: ["127.0.0.1"], ports: [port], allow_addresses: ["127.0.0.1"], credentials: [{ host: "127.0.0.1", secret: "local-token" }] },
    },
    approvals: { lower_risk: [{ tool: "web.fetch_page", to: "safe", acknowledged: true }] },
  });
});
after(async () => {
  await dispose();
  await new Promise((resolve) => server.close(resolve));
});

const base = () => `http://127.0.0.1:${port}`;
const via = (target: string) => `${base()}/to?u=${encodeURIComponent(target)}`;

const refusedHops: Array<[string, () => string, string]> = [
  ["to a host not granted", () => via("http://example.com/"), "host-not-allowed"],
  ["to another port", () => via("http://127.0.0.1:1/"), "port-not-allowed"],
  ["to another scheme", () => via("file:///etc/passwd"), "scheme-not-allowed"],
  ["to cloud metadata", () => via("http://169.254.169.254/latest/meta-data/"), "host-not-allowed"],
  ["round and round", () => `${base()}/loop`, "too-many-redirects"],
];

async function hostRecords(runId: string) {
  const { records } = await runtime.audit.query({ runId, kind: "host_call", limit: 100 });
  return records;
}

for (const [name, url, reason] of refusedHops) {
  test(`a refused redirect hop ${name} is audited as denied`, async () => {
    const run = await runtime.startRun({ agent: "reader" });
    const outcome = await run.callTool("web.fetch_page", { url: url() });
    assert.equal(outcome.status, "error", JSON.stringify(outcome));
    const records = await hostRecords(run.id);
    // The hop is its own denial, naming where it led from; the fetch's outcome is denied too
    // (a refusal at the effect), with the same reason.
    const hops = records.filter((r) => r.status === "denied" && r.intentSeq === null);
    assert.equal(hops.length, 1, JSON.stringify(records));
    assert.equal(hops[0]!.denial?.reason, reason);
    const args = hops[0]!.args;
    assert.match(typeof args === "string" ? args : JSON.stringify(args), /"redirect":\{"from":"http:\/\/127\.0\.0\.1/);
    const outcome_ = records.find((r) => r.intentSeq !== null);
    assert.equal(outcome_?.status, "denied", "the fetch's outcome is a denial, not an error");
    assert.equal(outcome_?.denial?.reason, reason);
    await run.end();
  });
}

test("a redirect hop that is allowed is followed and nothing is denied (control)", async () => {
  const run = await runtime.startRun({ agent: "reader" });
  const outcome = await run.callTool("web.fetch_page", { url: via("/plain"), format: "raw" });
  assert.equal(outcome.status, "ok", JSON.stringify(outcome));
  assert.match(JSON.stringify(outcome), /plain page/);
  assert.deepEqual((await hostRecords(run.id)).filter((r) => r.status === "denied"), []);
  await run.end();
});

for (const path of ["/b64", "/b64url", "/hex", "/pct"]) {
  test(`a secret echoed re-encoded (${path}) reaches the plugin redacted`, async () => {
    const run = await runtime.startRun({ agent: "reader" });
    const outcome = await run.callTool("web.fetch_page", { url: `${base()}${path}`, format: "raw" });
    assert.equal(outcome.status, "ok", JSON.stringify(outcome));
    const content = (outcome as { output: { content: string } }).output.content;
    assert.match(content, /\[REDACTED\]/);
    const forms = [SECRET, Buffer.from(SECRET).toString("hex").toUpperCase(), Buffer.from(SECRET).toString("base64").slice(4, 20), Buffer.from(`Bearer ${SECRET}`).toString("base64").slice(12, 30)];
    for (const form of forms) assert.ok(!content.includes(form), `${form} in ${content}`);
    await run.end();
  });
}
