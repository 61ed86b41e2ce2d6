/**
 * SSRF in every spelling, end to end through the proxy: each refused before any connection,
 * and each control reaching the same local server once its exact address is granted.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createHttpProxy, pinAddresses } from "../../../host-proxies/http/index.js";
import { fetchUrl, grant, listen, ok, rejectsWith, resolverOf, text } from "./_fixtures.js";

// Spellings that all reach the test server on 127.0.0.1, and the canonical address to grant.
const LOOPBACK_SPELLINGS: [host: string, allow: string][] = [
  ["127.0.0.1", "127.0.0.1"],
  ["127.1", "127.0.0.1"],
  ["2130706433", "127.0.0.1"],
  ["0x7f000001", "127.0.0.1"],
  ["0x7f.1", "127.0.0.1"],
  ["0177.0.0.1", "127.0.0.1"],
  ["0177.0.0.01", "127.0.0.1"],
  ["[::ffff:127.0.0.1]", "::ffff:7f00:1"],
  ["[::ffff:7f00:1]", "::ffff:7f00:1"],
  // Linux connects the unspecified address to the local host.
  ["0.0.0.0", "0.0.0.0"],
];

test("SSRF: loopback in every spelling refused; granted exactly, the same server is reached", async (t) => {
  const server = await listen(t, ok("reached"));
  for (const [host, allow] of LOOPBACK_SPELLINGS) {
    const url = `http://${host}:${server.port}/`;
    const denied = createHttpProxy(grant({ ports: [server.port] }));
    await rejectsWith(fetchUrl(denied, url), { tag: "denied", reason: "address-not-allowed" });
    assert.equal(server.seen.length, 0, `${host} reached the server`);
    const allowed = createHttpProxy(grant({ ports: [server.port], allow_addresses: [allow] }));
    const response = await fetchUrl(allowed, url);
    assert.equal(text(response.body), "reached", host);
    server.seen.length = 0;
  }
});

// Internal addresses the test cannot reach; their controls show the allowance lifts the refusal.
const UNREACHABLE: [host: string, canonical: string][] = [
  ["[::1]", "::1"],
  ["[0:0:0:0:0:0:0:1]", "::1"],
  ["[::]", "::"],
  ["[64:ff9b::7f00:1]", "64:ff9b::7f00:1"],
  ["[64:ff9b::127.0.0.1]", "64:ff9b::7f00:1"],
  ["[2002:7f00:1::]", "2002:7f00:1::"],
  ["[::127.0.0.1]", "::7f00:1"],
  ["169.254.169.254", "169.254.169.254"],
  ["2852039166", "169.254.169.254"],
  ["[::ffff:169.254.169.254]", "::ffff:a9fe:a9fe"],
  ["[fe80::1]", "fe80::1"],
  ["[fd00::2]", "fd00::2"],
  ["10.0.0.1", "10.0.0.1"],
  ["012.0.0.1", "10.0.0.1"],
  ["172.16.0.1", "172.16.0.1"],
  ["192.168.0.1", "192.168.0.1"],
  ["100.64.0.1", "100.64.0.1"],
  ["224.0.0.1", "224.0.0.1"],
  ["255.255.255.255", "255.255.255.255"],
];

test("SSRF: internal, metadata, link-local and embedded addresses refused; the allowance lifts exactly that one", async () => {
  const proxy = createHttpProxy(grant({}));
  const { resolver } = resolverOf({});
  for (const [host, canonical] of UNREACHABLE) {
    await rejectsWith(fetchUrl(proxy, `http://${host}/latest/meta-data/`), { tag: "denied", reason: "address-not-allowed" });
    const hostname = host.startsWith("[") ? host.slice(1, -1) : host;
    const policyHost = new URL(`http://${host}/`).hostname.replace(/^\[|\]$/g, "");
    assert.equal(policyHost, canonical, hostname);
    const pinned = await pinAddresses(policyHost, { resolver, allowAddresses: [canonical] });
    assert.equal(pinned.addresses[0]?.address, canonical);
    await rejectsWith(pinAddresses(policyHost, { resolver, allowAddresses: ["127.0.0.1"] }), { tag: "denied", reason: "address-not-allowed" });
  }
});

test("SSRF: names resolving to internal addresses refused; a public-looking name mapped to the granted address reaches", async (t) => {
  const server = await listen(t, ok("reached"));
  const { resolver } = resolverOf({
    localhost: ["127.0.0.1", "::1"],
    "metadata.test": ["169.254.169.254"],
    "intranet.test": ["10.1.2.3"],
    "v6only.test": ["::1"],
    "mapped.test": ["::ffff:127.0.0.1"],
    "api.test": ["127.0.0.1"],
  });
  const proxy = createHttpProxy(grant({ ports: [server.port] }), { resolver });
  for (const name of ["localhost", "metadata.test", "intranet.test", "v6only.test", "mapped.test", "api.test"]) {
    await rejectsWith(fetchUrl(proxy, `http://${name}:${server.port}/`), { tag: "denied", reason: "address-not-allowed", message: name });
  }
  assert.equal(server.seen.length, 0);
  // Control: 127.0.0.1 granted. `localhost` also answers ::1, which is not granted: still refused.
  const allowed = createHttpProxy(grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] }), { resolver });
  assert.equal(text((await fetchUrl(allowed, `http://api.test:${server.port}/`)).body), "reached");
  await rejectsWith(fetchUrl(allowed, `http://localhost:${server.port}/`), { tag: "denied", reason: "address-not-allowed" });
  await rejectsWith(fetchUrl(allowed, `http://mapped.test:${server.port}/`), { tag: "denied", reason: "address-not-allowed" });
  assert.equal(server.seen.length, 1);
  assert.equal(server.header(0, "host"), `api.test:${server.port}`);
});

test("SSRF: userinfo confusion never reaches the address after '@'", async (t) => {
  const server = await listen(t, ok("reached"));
  const proxy = createHttpProxy(grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] }));
  await rejectsWith(fetchUrl(proxy, `http://allowed.example@127.0.0.1:${server.port}/`), { tag: "denied", reason: "userinfo-not-allowed" });
  assert.equal(server.seen.length, 0);
  // Control: the same target without userinfo.
  assert.equal(text((await fetchUrl(proxy, `http://127.0.0.1:${server.port}/`)).body), "reached");
});

test("SSRF: the proxy re-decides its own grant, whatever the gate did", async (t) => {
  const server = await listen(t, ok("reached"));
  const { resolver } = resolverOf({ "api.test": ["127.0.0.1"], "other.test": ["127.0.0.1"] });
  const proxy = createHttpProxy(grant({ hosts: ["api.test"], ports: [server.port], allow_addresses: ["127.0.0.1"] }), { resolver });
  await rejectsWith(fetchUrl(proxy, `http://other.test:${server.port}/`), { tag: "denied", reason: "host-not-allowed" });
  await rejectsWith(fetchUrl(proxy, `http://api.test:${server.port}/`, { method: "PATCH", body: new Uint8Array(0) }), { tag: "denied", reason: "method-not-allowed" });
  await rejectsWith(fetchUrl(proxy, `http://api.test:${server.port + 1 === 65536 ? 1 : server.port + 1}/`), { tag: "denied", reason: "port-not-allowed" });
  assert.equal(server.seen.length, 0);
  assert.equal(text((await fetchUrl(proxy, `http://api.test:${server.port}/`)).body), "reached");
});

test("host-header tricks: a plugin Host or CRLF-smuggled header never reaches the server", async (t) => {
  const server = await listen(t, ok("reached"));
  const { resolver } = resolverOf({ "api.test": ["127.0.0.1"] });
  const proxy = createHttpProxy(grant({ hosts: ["api.test"], ports: [server.port], allow_addresses: ["127.0.0.1"] }), { resolver });
  const url = `http://api.test:${server.port}/`;
  await rejectsWith(fetchUrl(proxy, url, { headers: [{ name: "Host", value: "internal.admin" }] }), { tag: "denied", reason: "header-not-allowed" });
  await rejectsWith(fetchUrl(proxy, url, { headers: [{ name: "X-Note", value: "a\r\nHost: internal.admin" }] }), { tag: "invalid-input" });
  await rejectsWith(fetchUrl(proxy, url, { headers: [{ name: "Transfer-Encoding", value: "chunked" }] }), { tag: "denied", reason: "header-not-allowed" });
  assert.equal(server.seen.length, 0);
  // Control: the host sets Host from the canonical URL, exactly once.
  await fetchUrl(proxy, url, { headers: [{ name: "X-Note", value: "a Host: internal.admin" }] });
  assert.deepEqual(server.seen[0]?.headers.filter(([n]) => n === "host"), [["host", `api.test:${server.port}`]]);
  assert.equal(server.header(0, "x-note"), "a Host: internal.admin");
});
