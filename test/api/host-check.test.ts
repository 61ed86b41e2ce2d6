/**
 * DNS rebinding: a page whose name now points at 127.0.0.1 still sends its own name in `Host`.
 * Adversarial table of Host values on every kind of route (public, metrics, authenticated),
 * each refusal beside the listen address's own names, which must pass. And `/metrics` behind
 * its optional token.
 */
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { test } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import type { HostCheckOptions } from "../../runtime/api/middleware/index.js";
import { createRuntimeMetrics } from "../../runtime/metrics/index.js";
import { listen, memoryTokens } from "./fixtures.js";

const { tokens } = await memoryTokens();
const { token } = await tokens.create("admin");
const METRICS_TOKEN = "metrics-token-0123456789";

function appFor(hosts: HostCheckOptions | undefined, extra: { metricsToken?: string } = {}) {
  return createApp({ version: "test", tokens, metrics: createRuntimeMetrics(), ...(hosts === undefined ? {} : { hosts }), ...extra });
}

async function status(app: ReturnType<typeof appFor>, path: string, host: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const response = await app.request(path, { headers: { host, ...headers } });
  return { status: response.status, body: await response.text() };
}

const ROUTES: Array<[path: string, headers: Record<string, string>]> = [
  ["/health", {}],
  ["/metrics", {}],
  ["/v1/openapi.json", { authorization: `Bearer ${token}` }],
];

/** [listen, allowed, Host, expected status] — 421 refused, 400 malformed, 0 passes (the route's own answer). */
const TABLE: Array<[label: string, hosts: HostCheckOptions | undefined, host: string, expected: 0 | 400 | 421]> = [
  ["loopback: its own address (control)", { listen: { host: "127.0.0.1", port: 7878 } }, "127.0.0.1:7878", 0],
  ["loopback: localhost (control)", { listen: { host: "127.0.0.1", port: 7878 } }, "localhost:7878", 0],
  ["loopback: LocalHost, any case (control)", { listen: { host: "127.0.0.1", port: 7878 } }, "LocalHost:7878", 0],
  ["loopback: [::1] (control)", { listen: { host: "127.0.0.1", port: 7878 } }, "[::1]:7878", 0],
  ["loopback: a rebinding attacker's name", { listen: { host: "127.0.0.1", port: 7878 } }, "evil.example:7878", 421],
  ["loopback: the attacker's name without a port", { listen: { host: "127.0.0.1", port: 7878 } }, "evil.example", 421],
  ["loopback: a name that embeds the address", { listen: { host: "127.0.0.1", port: 7878 } }, "127.0.0.1.nip.io:7878", 421],
  ["loopback: localhost with a trailing dot", { listen: { host: "127.0.0.1", port: 7878 } }, "localhost.:7878", 421],
  ["loopback: a subdomain of localhost", { listen: { host: "127.0.0.1", port: 7878 } }, "evil.localhost:7878", 421],
  ["loopback: the right name on another port", { listen: { host: "127.0.0.1", port: 7878 } }, "localhost:7879", 421],
  ["loopback: the right name with no port (80)", { listen: { host: "127.0.0.1", port: 7878 } }, "localhost", 421],
  ["loopback: another loopback address", { listen: { host: "127.0.0.1", port: 7878 } }, "127.0.0.2:7878", 421],
  ["loopback: 0.0.0.0", { listen: { host: "127.0.0.1", port: 7878 } }, "0.0.0.0:7878", 421],
  ["loopback: userinfo smuggled into Host", { listen: { host: "127.0.0.1", port: 7878 } }, "localhost:7878@evil.example", 400],
  ["loopback: a port out of range", { listen: { host: "127.0.0.1", port: 7878 } }, "localhost:99999", 400],
  ["loopback: two ports", { listen: { host: "127.0.0.1", port: 7878 } }, "localhost:7878:7878", 400],
  ["loopback: a path in Host", { listen: { host: "127.0.0.1", port: 7878 } }, "localhost:7878/x", 400],
  ["v6 loopback: [::1] (control)", { listen: { host: "::1", port: 7878 } }, "[::1]:7878", 0],
  ["v6 loopback: localhost (control)", { listen: { host: "::1", port: 7878 } }, "localhost:7878", 0],
  ["v6 loopback: bracketed garbage", { listen: { host: "::1", port: 7878 } }, "[evil]:7878", 400],
  ["every interface: localhost (control)", { listen: { host: "0.0.0.0", port: 7878 } }, "localhost:7878", 0],
  ["every interface: an unlisted LAN name", { listen: { host: "0.0.0.0", port: 7878 } }, "box.lan:7878", 421],
  ["every interface: an allowed name, any port (control)", { listen: { host: "0.0.0.0", port: 7878 }, allowedHosts: ["clawhive.internal"] }, "clawhive.internal", 0],
  ["every interface: an allowed name:port (control)", { listen: { host: "0.0.0.0", port: 7878 }, allowedHosts: ["10.0.0.5:7878"] }, "10.0.0.5:7878", 0],
  ["every interface: an allowed name:port on another port", { listen: { host: "0.0.0.0", port: 7878 }, allowedHosts: ["10.0.0.5:7878"] }, "10.0.0.5:8080", 421],
  ["every interface: a suffix of an allowed name", { listen: { host: "0.0.0.0", port: 7878 }, allowedHosts: ["clawhive.internal"] }, "evil-clawhive.internal:7878", 421],
  ["a named listen host (control)", { listen: { host: "api.example.com", port: 443 } }, "api.example.com:443", 0],
  ["a named listen host: localhost is not it", { listen: { host: "api.example.com", port: 443 } }, "localhost:443", 421],
  ["port 0: any port of the loopback names (control)", { listen: { host: "127.0.0.1", port: 0 } }, "127.0.0.1:41234", 0],
  ["port 0: still not another name", { listen: { host: "127.0.0.1", port: 0 } }, "evil.example:41234", 421],
  ["embedded (no listen): localhost (control)", undefined, "localhost", 0],
  ["embedded (no listen): another name", undefined, "evil.example", 421],
];

for (const [label, hosts, host, expected] of TABLE) {
  test(`Host check: ${label} → ${expected === 0 ? "passes" : expected}`, async () => {
    const app = appFor(hosts);
    for (const [path, headers] of ROUTES) {
      const answer = await status(app, path, host, headers);
      if (expected === 0) {
        assert.equal(answer.status, 200, `${path}: ${answer.body}`);
        continue;
      }
      assert.equal(answer.status, expected, `${path}: ${answer.body}`);
      const error = (JSON.parse(answer.body) as { error: { code: string; field?: string } }).error;
      assert.equal(error.code, expected === 421 ? "host_not_allowed" : "bad_host", path);
      assert.equal(error.field, "host", path);
    }
  });
}

test("Host check: a malformed allowed_hosts entry is refused when the app is built", () => {
  for (const bad of ["*.example.com", "a b", "http://x", "[zz]:1"]) {
    assert.throws(() => appFor({ listen: { host: "127.0.0.1", port: 7878 }, allowedHosts: [bad] }), RangeError, bad);
  }
});

test("Host check: over a real socket, a rebinding Host is refused and the listen address passes", async (t) => {
  const server = await listen(appFor({ listen: { host: "127.0.0.1", port: 0 } }));
  t.after(() => server.close());
  const get = (host: string) =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port: server.port, path: "/health", headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end();
    });
  assert.equal(await get(`evil.example:${server.port}`), 421);
  assert.equal(await get(`127.0.0.1:${server.port}`), 200);
});

const METRICS: Array<[label: string, authorization: string | undefined, expected: number]> = [
  ["no Authorization header", undefined, 401],
  ["a wrong token", "Bearer metrics-token-0123456780", 401],
  ["a prefix of the token", "Bearer metrics-token", 401],
  ["the API's admin token is not the metrics token", `Bearer ${token}`, 401],
  ["another scheme", `Basic ${Buffer.from(`x:${METRICS_TOKEN}`).toString("base64")}`, 400],
  ["the metrics token (control)", `Bearer ${METRICS_TOKEN}`, 200],
];

for (const [label, authorization, expected] of METRICS) {
  test(`metrics token: ${label} → ${expected}`, async () => {
    const app = appFor({ listen: { host: "127.0.0.1", port: 7878 } }, { metricsToken: METRICS_TOKEN });
    const answer = await status(app, "/metrics", "127.0.0.1:7878", authorization === undefined ? {} : { authorization });
    assert.equal(answer.status, expected, answer.body);
    if (expected === 401) assert.match((await app.request("/metrics", { headers: { host: "127.0.0.1:7878" } })).headers.get("www-authenticate") ?? "", /^Bearer/);
    if (expected === 200) assert.match(answer.body, /# TYPE/);
  });
}

test("metrics token: /health stays public; a wrong Host is refused before the token is looked at", async () => {
  const app = appFor({ listen: { host: "127.0.0.1", port: 7878 } }, { metricsToken: METRICS_TOKEN });
  assert.equal((await status(app, "/health", "127.0.0.1:7878")).status, 200);
  assert.equal((await status(app, "/metrics", "evil.example:7878", { authorization: `Bearer ${METRICS_TOKEN}` })).status, 421);
  assert.throws(() => appFor(undefined, { metricsToken: "short" }), RangeError);
});
