/**
 * Grant credentials: added by the host for one exact host and origin, over https (or to
 * loopback), never visible to the plugin in what comes back, never sent anywhere else.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import type { TLSSocket } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { createHttpProxy, REDACTED } from "../../../host-proxies/http/index.js";
import type { HttpProxyOptions } from "../../../host-proxies/http/index.js";
import { InvalidInputError } from "../../../runtime/errors.js";
import { fetchUrl, grant, listen, rejectsWith, resolverOf, responseHeader, text } from "./_fixtures.js";
import type { TestServer } from "./_fixtures.js";

const SECRET = 's3cr3t"tok/en+42-abcdef';
const secrets: Record<string, string> = { "api-token": SECRET, "b-token": "b-secret-value-9876" };
const resolveSecret = async (name: string) => {
  const value = secrets[name];
  if (value === undefined) throw new Error(`no secret ${name}`);
  return value;
};

/** Reflects the request's headers: as JSON, percent-encoded, raw in a header, and redirects on `/r?to=`. */
async function echo(t: TestContext): Promise<TestServer> {
  return listen(t, (req, res, seen) => {
    const url = new URL(req.url ?? "/", "http://x");
    const to = url.searchParams.get("to");
    if (to !== null) {
      res.statusCode = 302;
      res.setHeader("location", to);
      return res.end();
    }
    const auth = String(req.headers.authorization ?? "");
    res.setHeader("x-echo-authorization", auth);
    if (url.pathname === "/uri") return res.end(`q=${encodeURIComponent(auth)}`);
    if (url.pathname === "/plain") return res.end("nothing to hide: s3cr3t");
    res.end(JSON.stringify({ headers: Object.fromEntries(seen.headers) }));
  });
}

function proxyFor(server: TestServer, credentials: unknown[], options: HttpProxyOptions = {}) {
  const { resolver } = resolverOf({ "api.test": ["127.0.0.1"], "other.test": ["127.0.0.1"], "b.test": ["127.0.0.1"], "far.test": ["10.9.9.9"] });
  const g = grant({ ports: [server.port], allow_addresses: ["127.0.0.1", "10.9.9.9"], credentials });
  return createHttpProxy(g, { resolver, resolveSecret, ...options });
}

const API = { host: "api.test", secret: "api-token" };

test("credentials: added for the exact host; the echoed value is redacted in body and headers", async (t) => {
  const server = await echo(t);
  const proxy = proxyFor(server, [API]);
  const response = await fetchUrl(proxy, `http://api.test:${server.port}/echo`);
  assert.equal(server.header(0, "authorization"), `Bearer ${SECRET}`, "the server got the credential");
  const body = text(response.body);
  assert.ok(!body.includes("s3cr3t"), body);
  assert.ok(body.includes(`Bearer ${REDACTED}`), body);
  assert.equal(responseHeader(response, "x-echo-authorization"), `Bearer ${REDACTED}`);
  const uri = text((await fetchUrl(proxy, `http://api.test:${server.port}/uri`)).body);
  assert.equal(uri, `q=Bearer%20${REDACTED}`);
  // Control: a body without the secret comes back byte for byte.
  assert.equal(text((await fetchUrl(proxy, `http://api.test:${server.port}/plain`)).body), "nothing to hide: s3cr3t");
});

test("credentials: a secret cut by the size cap is redacted too", async (t) => {
  const server = await echo(t);
  const proxy = proxyFor(server, [API]);
  const full = text((await fetchUrl(proxy, `http://api.test:${server.port}/echo`)).body);
  server.seen.length = 0;
  // The raw reflection is JSON-escaped: find where the escaped secret starts and cut 8 bytes in.
  const at = Buffer.from(full.replace(REDACTED, JSON.stringify(SECRET).slice(1, -1))).indexOf("s3cr3t");
  const cut = await fetchUrl(proxy, `http://api.test:${server.port}/echo`, { maxBytes: BigInt(at + 8) });
  assert.equal(cut.truncated, true);
  assert.ok(!text(cut.body).includes("s3cr3t"), text(cut.body));
  assert.ok(text(cut.body).endsWith(REDACTED));
});

test("credentials: a raw scheme puts the bare value in the named header", async (t) => {
  const server = await echo(t);
  const proxy = proxyFor(server, [{ ...API, header: "x-api-key" }]);
  // The schema's default is Bearer; a raw key is written with scheme ''.
  const raw = createHttpProxy({ ...grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] }), credentials: [{ ...API, header: "x-api-key", scheme: "" }] }, { resolver: resolverOf({ "api.test": ["127.0.0.1"] }).resolver, resolveSecret });
  await fetchUrl(raw, `http://api.test:${server.port}/`);
  assert.equal(server.header(0, "x-api-key"), SECRET);
  await fetchUrl(proxy, `http://api.test:${server.port}/`);
  assert.equal(server.header(1, "x-api-key"), `Bearer ${SECRET}`);
});

test("credentials: never sent to another host, even on the same address", async (t) => {
  const server = await echo(t);
  const proxy = proxyFor(server, [API]);
  await fetchUrl(proxy, `http://other.test:${server.port}/`);
  await fetchUrl(proxy, `http://127.0.0.1:${server.port}/`);
  assert.equal(server.header(0, "authorization"), undefined);
  assert.equal(server.header(1, "authorization"), undefined);
  await fetchUrl(proxy, `http://api.test:${server.port}/`);
  assert.equal(server.header(2, "authorization"), `Bearer ${SECRET}`, "control");
});

test("credentials: dropped when a redirect changes origin, never re-added, never swapped for another host's", async (t) => {
  const server = await echo(t);
  const other = await echo(t);
  const { resolver } = resolverOf({ "api.test": ["127.0.0.1"], "b.test": ["127.0.0.1"] });
  const g = grant({ ports: [server.port, other.port], allow_addresses: ["127.0.0.1"], credentials: [API, { host: "b.test", secret: "b-token" }] });
  const proxy = createHttpProxy(g, { resolver, resolveSecret });
  const via = (target: string) => `http://api.test:${server.port}/r?to=${encodeURIComponent(target)}`;
  const rows: [why: string, target: string, where: TestServer][] = [
    ["another host", `http://b.test:${server.port}/`, server],
    ["another port on the same host", `http://api.test:${other.port}/`, other],
    ["out and back to the origin", `http://b.test:${server.port}/r?to=${encodeURIComponent(`http://api.test:${server.port}/back`)}`, server],
  ];
  for (const [why, target, where] of rows) {
    server.seen.length = 0;
    other.seen.length = 0;
    const response = await fetchUrl(proxy, via(target));
    assert.equal(response.status, 200, why);
    const last = where.seen.length - 1;
    assert.equal(server.header(0, "authorization"), `Bearer ${SECRET}`, `${why}: first hop`);
    assert.equal(where.header(last, "authorization"), undefined, why);
  }
  // Control: a same-origin redirect keeps it.
  server.seen.length = 0;
  await fetchUrl(proxy, via("/same"));
  assert.equal(server.header(1, "authorization"), `Bearer ${SECRET}`);
});

test("credentials: a secret echoed into a redirect Location is scrubbed from the error", async (t) => {
  const server = await echo(t);
  const { resolver } = resolverOf({ "api.test": ["127.0.0.1"] });
  // 192.0.2.10 (TEST-NET-1) is granted so the hop is attempted, and never answers.
  const g = grant({ ports: [server.port], allow_addresses: ["127.0.0.1", "192.0.2.10"], credentials: [API] });
  const proxy = createHttpProxy(g, { resolver, resolveSecret, connectTimeoutMs: 200 });
  const target = `http://192.0.2.10:${server.port}/?t=${encodeURIComponent(SECRET)}`;
  const err = await rejectsWith(fetchUrl(proxy, `http://api.test:${server.port}/r?to=${encodeURIComponent(target)}`), { tag: "io", message: REDACTED });
  assert.ok(!err.message.includes("s3cr3t"), err.message);
  assert.ok(!JSON.stringify(err.hostError).includes("s3cr3t"));
});

test("credentials: never over plain http to a non-loopback address; loopback is the control", async (t) => {
  const server = await echo(t);
  let reads = 0;
  const proxy = proxyFor(server, [{ host: "far.test", secret: "api-token" }, API], { resolveSecret: async (n) => (reads++, resolveSecret(n)) });
  await rejectsWith(fetchUrl(proxy, `http://far.test:${server.port}/`), { tag: "denied", reason: "credential-over-plain-http" });
  assert.equal(reads, 0, "the secret was not even read");
  await fetchUrl(proxy, `http://api.test:${server.port}/`);
  assert.equal(server.header(0, "authorization"), `Bearer ${SECRET}`);
});

test("credentials: the plugin cannot set or probe the credential's header for that host", async (t) => {
  const server = await echo(t);
  const proxy = proxyFor(server, [API]);
  const headers = [{ name: "Authorization", value: "Bearer mine" }];
  await rejectsWith(fetchUrl(proxy, `http://api.test:${server.port}/`, { headers }), { tag: "denied", reason: "header-not-allowed" });
  await fetchUrl(proxy, `http://other.test:${server.port}/`, { headers });
  assert.equal(server.header(0, "authorization"), "Bearer mine", "control: its own header to another host");
});

test("credentials: an unreadable or unsafe secret fails closed, never naming the value", async (t) => {
  const server = await echo(t);
  const failing = proxyFor(server, [API], { resolveSecret: async () => { throw new Error(`vault says ${SECRET}`); } });
  const err = await rejectsWith(fetchUrl(failing, `http://api.test:${server.port}/`), { tag: "io", message: "api-token" });
  assert.ok(!JSON.stringify(err.hostError).includes("s3cr3t"));
  const injecting = proxyFor(server, [API], { resolveSecret: async () => "tok\r\nX-Evil: 1" });
  await rejectsWith(fetchUrl(injecting, `http://api.test:${server.port}/`), { tag: "io" });
  assert.equal(server.seen.length, 0);
  assert.throws(() => createHttpProxy(grant({ credentials: [API] })), InvalidInputError);
});

function selfSigned(t: TestContext): { key: Buffer; cert: Buffer } | undefined {
  const dir = mkdtempSync(join(tmpdir(), "clawhive-http-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  try {
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
      "-keyout", join(dir, "k.pem"), "-out", join(dir, "c.pem"), "-subj", "/CN=api.test", "-addext", "subjectAltName=DNS:api.test"], { stdio: "ignore" });
  } catch {
    return undefined;
  }
  return { key: readFileSync(join(dir, "k.pem")), cert: readFileSync(join(dir, "c.pem")) };
}

test("https: SNI and certificate checked against the name, not the pinned address; credential sent", async (t) => {
  const tls = selfSigned(t);
  if (tls === undefined) return t.skip("openssl is not available");
  const servernames: unknown[] = [];
  const server = await listen(t, (req, res) => {
    servernames.push((req.socket as TLSSocket).servername);
    res.end("secure");
  }, (listener) => createHttpsServer({ key: tls.key, cert: tls.cert }, listener));
  const { resolver } = resolverOf({ "api.test": ["127.0.0.1"], "other.test": ["127.0.0.1"] });
  const g = grant({ schemes: ["https"], ports: [server.port], allow_addresses: ["127.0.0.1"], credentials: [API] });
  const proxy = createHttpProxy(g, { resolver, resolveSecret, ca: tls.cert });
  const response = await fetchUrl(proxy, `https://api.test:${server.port}/`);
  assert.equal(text(response.body), "secure");
  assert.deepEqual(servernames, ["api.test"]);
  assert.equal(server.header(0, "authorization"), `Bearer ${SECRET}`);
  assert.equal(server.header(0, "host"), `api.test:${server.port}`);
  // The certificate names api.test: the same address under another name fails verification.
  await rejectsWith(fetchUrl(proxy, `https://other.test:${server.port}/`), { tag: "io", message: "TLS" });
  const untrusting = createHttpProxy(g, { resolver, resolveSecret });
  await rejectsWith(fetchUrl(untrusting, `https://api.test:${server.port}/`), { tag: "io", message: "TLS" });
  assert.equal(server.seen.length, 1);
});
