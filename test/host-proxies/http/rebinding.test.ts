/**
 * DNS rebinding: the name is resolved once, and the socket goes to the address that was vetted,
 * whatever a second query would say. 192.0.2.10 (TEST-NET-1, RFC 5737) stands in for a public
 * address: granted so it passes vetting, and unroutable, so no real host is ever contacted.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createHttpProxy, pinAddresses } from "../../../host-proxies/http/index.js";
import { pinnedLookup } from "../../../host-proxies/http/resolve.js";
import { fetchUrl, grant, listen, ok, rejectsWith, resolverOf, text } from "./_fixtures.js";

test("rebinding: a name answering 'public' then 127.0.0.1 never reaches the local server", async (t) => {
  const server = await listen(t, ok("internal"));
  const dns = resolverOf({ "rebind.test": [["192.0.2.10"], ["127.0.0.1"]] });
  const proxy = createHttpProxy(grant({ ports: [server.port], allow_addresses: ["192.0.2.10"] }), { resolver: dns.resolver, connectTimeoutMs: 300 });
  await rejectsWith(fetchUrl(proxy, `http://rebind.test:${server.port}/`, { timeoutMs: 2000 }), { tag: "io" });
  assert.deepEqual(dns.calls, ["rebind.test"], "resolved exactly once");
  assert.equal(server.seen.length, 0, "the connection went to the vetted address, not the rebound one");
});

test("rebinding control: the first, vetted answer is the one connected to", async (t) => {
  const server = await listen(t, ok("vetted"));
  const dns = resolverOf({ "rebind.test": [["127.0.0.1"], ["192.0.2.10"]] });
  const proxy = createHttpProxy(grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] }), { resolver: dns.resolver });
  const response = await fetchUrl(proxy, `http://rebind.test:${server.port}/`);
  assert.equal(text(response.body), "vetted");
  assert.deepEqual(dns.calls, ["rebind.test"]);
  // Each fetch resolves and vets afresh: the second answer is not granted.
  await rejectsWith(fetchUrl(proxy, `http://rebind.test:${server.port}/`), { tag: "denied", reason: "address-not-allowed" });
});

test("rebinding: one answer holding both a public and a loopback address is refused before connecting", async (t) => {
  const server = await listen(t, ok());
  const dns = resolverOf({ "both.test": ["192.0.2.10", "127.0.0.1"], "one.test": ["127.0.0.1"] });
  const proxy = createHttpProxy(grant({ ports: [server.port], allow_addresses: ["192.0.2.10"] }), { resolver: dns.resolver });
  const err = await rejectsWith(fetchUrl(proxy, `http://both.test:${server.port}/`), { tag: "denied", reason: "address-not-allowed" });
  assert.match(err.message, /127\.0\.0\.1/);
  assert.equal(server.seen.length, 0);
  // Control: the loopback answer alone, granted.
  const control = createHttpProxy(grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] }), { resolver: dns.resolver });
  assert.equal((await fetchUrl(control, `http://one.test:${server.port}/`)).status, 200);
});

test("pinnedLookup: answers only for the pinned name, only with the vetted addresses", async () => {
  const pinned = await pinAddresses("api.test", { resolver: resolverOf({ "api.test": ["127.0.0.1", "::1"] }).resolver, allowAddresses: ["127.0.0.1", "::1"] });
  const lookup = pinnedLookup(pinned);
  const all = await new Promise((resolve) => lookup("api.test", { all: true }, (err, addresses) => resolve({ err, addresses })));
  assert.deepEqual(all, { err: null, addresses: [{ address: "127.0.0.1", family: 4 }, { address: "::1", family: 6 }] });
  const one = await new Promise((resolve) => lookup("api.test", {}, (err, address, family) => resolve({ err, address, family })));
  assert.deepEqual(one, { err: null, address: "127.0.0.1", family: 4 });
  const other = await new Promise<NodeJS.ErrnoException | null>((resolve) => lookup("evil.test", {}, (err) => resolve(err)));
  assert.equal(other?.code, "ENOTFOUND");
});
