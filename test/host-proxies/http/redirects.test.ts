/**
 * Redirects: every hop re-canonicalised, re-decided (the proxy's grant and the caller's
 * checkHop), re-vetted and counted; RFC 9110 method rewriting; the plugin's own credentials
 * left behind when the origin changes.
 */
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { createHttpProxy } from "../../../host-proxies/http/index.js";
import type { HttpHop } from "../../../host-proxies/http/index.js";
import { bytes, fetchUrl, grant, listen, rejectsWith, resolverOf, responseHeader, text } from "./_fixtures.js";
import type { TestServer } from "./_fixtures.js";

function redirect(res: ServerResponse, location: string, status = 302): void {
  res.statusCode = status;
  res.setHeader("location", location);
  res.end("moved");
}

/** `/r/<status>?to=<url>` redirects; `/loop` redirects to itself; anything else answers 200. */
async function redirector(t: TestContext): Promise<TestServer> {
  return listen(t, (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const to = url.searchParams.get("to");
    if (url.pathname.startsWith("/r/") && to !== null) return redirect(res, to, Number(url.pathname.slice(3)));
    if (url.pathname === "/loop") return redirect(res, "/loop");
    if (url.pathname.startsWith("/chain/")) {
      const n = Number(url.pathname.slice(7));
      return n > 0 ? redirect(res, `/chain/${n - 1}`) : res.end("end of chain");
    }
    res.end(`final ${req.method}`);
  });
}

const to = (server: TestServer, target: string, status = 302) => server.url(`/r/${status}?to=${encodeURIComponent(target)}`);

test("redirects: to an internal address refused; same-origin control followed", async (t) => {
  const server = await redirector(t);
  const { resolver } = resolverOf({ "intranet.test": ["10.0.0.7"], "loop.test": ["127.0.0.1"] });
  // The test server is reached through its IPv4-mapped spelling, the only one granted, so a
  // redirect to 127.0.0.1 in any other spelling is a redirect to a refused address.
  const proxy = createHttpProxy(grant({ ports: [server.port, 80], allow_addresses: ["::ffff:7f00:1"] }), { resolver });
  const start = (target: string) => fetchUrl(proxy, to(server, target).replace("127.0.0.1", "[::ffff:7f00:1]"));
  const p = server.port;
  const rows = ["http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[::1]/", `http://0x7f000001:${p}/`, `http://127.1:${p}/`, "http://intranet.test/", `http://loop.test:${p}/`];
  for (const target of rows) await rejectsWith(start(target), { tag: "denied", reason: "address-not-allowed" });
  assert.equal(server.seen.length, rows.length, "no refused hop reached the server");
  const response = await start("/final");
  assert.deepEqual([response.status, text(response.body), response.redirects, response.url], [200, "final GET", 1, `http://[::ffff:7f00:1]:${p}/final`]);
});

test("redirects: a hop outside the grant, to another scheme or with userinfo is refused", async (t) => {
  const server = await redirector(t);
  const { resolver } = resolverOf({ "api.test": ["127.0.0.1"], "other.test": ["127.0.0.1"] });
  const proxy = createHttpProxy(grant({ hosts: ["api.test"], ports: [server.port], allow_addresses: ["127.0.0.1"] }), { resolver });
  const start = (target: string) => fetchUrl(proxy, to(server, target).replace("127.0.0.1", "api.test"));
  await rejectsWith(start(`http://other.test:${server.port}/`), { tag: "denied", reason: "host-not-allowed" });
  await rejectsWith(start("file:///etc/passwd"), { tag: "denied", reason: "scheme-not-allowed" });
  await rejectsWith(start(`http://api.test@127.0.0.1:${server.port}/`), { tag: "denied", reason: "userinfo-not-allowed" });
  await rejectsWith(start(`http://api.test:${server.port === 65535 ? 1 : server.port + 1}/`), { tag: "denied", reason: "port-not-allowed" });
  // Control: a hop to a granted URL.
  assert.equal(text((await start(`http://api.test:${server.port}/ok`)).body), "final GET");
});

test("redirects: the caller's checkHop decides every hop and sees it canonical", async (t) => {
  const server = await redirector(t);
  const proxy = createHttpProxy(grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] }));
  const hops: HttpHop[] = [];
  const deny = { capability: "http.fetch", reason: "narrowed-by-task", message: "the task narrowed http.fetch" };
  await rejectsWith(fetchUrl(proxy, to(server, "/FINAL#frag"), {}, { checkHop: (hop) => (hops.push(hop), deny) }), { tag: "denied", reason: "narrowed-by-task" });
  assert.equal(server.seen.length, 1, "the refused hop was never sent");
  assert.deepEqual(hops[0]?.request, { scheme: "http", host: "127.0.0.1", port: server.port, method: "GET" });
  assert.equal(hops[0]?.canonical.url, server.url("/FINAL"));
  assert.equal(hops[0]?.index, 1);
  await rejectsWith(fetchUrl(proxy, to(server, "/x"), {}, { checkHop: () => { throw new Error("policy store down"); } }), { tag: "io" });
  // Control: a hop check that allows.
  const response = await fetchUrl(proxy, to(server, "/final"), {}, { checkHop: () => undefined });
  assert.equal(text(response.body), "final GET");
});

test("redirects: loops capped at maxRedirects; a chain of exactly that many is followed", async (t) => {
  const server = await redirector(t);
  const proxy = createHttpProxy(grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] }), { maxRedirects: 5 });
  await rejectsWith(fetchUrl(proxy, server.url("/loop")), { tag: "denied", reason: "too-many-redirects" });
  assert.equal(server.seen.length, 6);
  const response = await fetchUrl(proxy, server.url("/chain/5"));
  assert.deepEqual([text(response.body), response.redirects], ["end of chain", 5]);
  await rejectsWith(fetchUrl(proxy, server.url("/chain/6")), { tag: "denied", reason: "too-many-redirects" });
});

test("redirects: followRedirects false hands the redirect back", async (t) => {
  const server = await redirector(t);
  const proxy = createHttpProxy(grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] }));
  const response = await fetchUrl(proxy, to(server, "http://10.0.0.1/"), { followRedirects: false });
  assert.deepEqual([response.status, responseHeader(response, "location"), response.redirects], [302, "http://10.0.0.1/", 0]);
});

type MethodRow = [status: number, method: string, sentMethod: string, bodyKept: boolean];

// RFC 9110 §15.4.2–15.4.9.
const METHOD_ROWS: MethodRow[] = [
  [301, "POST", "GET", false],
  [302, "POST", "GET", false],
  [303, "POST", "GET", false],
  [303, "PUT", "GET", false],
  [303, "HEAD", "HEAD", false],
  [302, "PUT", "PUT", true],
  [307, "POST", "POST", true],
  [308, "POST", "POST", true],
  [308, "DELETE", "DELETE", false],
];

test("redirects: method and body rewritten per RFC 9110, body headers dropped with the body", async (t) => {
  const server = await redirector(t);
  const proxy = createHttpProxy(grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] }));
  for (const [status, method, sentMethod, bodyKept] of METHOD_ROWS) {
    server.seen.length = 0;
    const body = method === "HEAD" || method === "DELETE" ? undefined : bytes("payload");
    await fetchUrl(proxy, to(server, "/next", status), { method, body, headers: [{ name: "content-type", value: "text/plain" }] });
    const hop = server.seen[1];
    assert.equal(hop?.method, sentMethod, `${status} ${method}`);
    assert.equal(hop?.body, bodyKept ? "payload" : "", `${status} ${method} body`);
    const typeKept = sentMethod === method;
    assert.equal(server.header(1, "content-type"), typeKept ? "text/plain" : undefined, `${status} ${method} content-type`);
  }
});

test("redirects: the plugin's Authorization and Cookie stay with the origin (host, scheme or port change)", async (t) => {
  const a = await redirector(t);
  const b = await listen(t, (_req, res) => res.end("b"));
  const { resolver } = resolverOf({ "a.test": ["127.0.0.1"], "b.test": ["127.0.0.1"] });
  const proxy = createHttpProxy(grant({ ports: [a.port, b.port], allow_addresses: ["127.0.0.1"] }), { resolver });
  const headers = [{ name: "Authorization", value: "Basic cGx1Z2lu" }, { name: "Cookie", value: "sid=1" }, { name: "X-Trace", value: "t" }];
  const start = (target: string) => fetchUrl(proxy, to(a, target).replace("127.0.0.1", "a.test"), { headers });
  for (const target of [`http://b.test:${b.port}/`, `http://a.test:${b.port}/`, `http://127.0.0.1:${a.port}/`]) {
    b.seen.length = 0;
    a.seen.length = 0;
    await start(target);
    const seen = b.seen.length > 0 ? b : a;
    const i = seen === a ? 1 : 0;
    assert.equal(seen.header(i, "authorization"), undefined, target);
    assert.equal(seen.header(i, "cookie"), undefined, target);
    assert.equal(seen.header(i, "x-trace"), "t", target);
  }
  // Control: a same-origin hop keeps them.
  a.seen.length = 0;
  await start("/same");
  assert.equal(a.header(1, "authorization"), "Basic cGx1Z2lu");
  assert.equal(a.header(1, "cookie"), "sid=1");
});
