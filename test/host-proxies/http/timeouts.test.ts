/** The whole-fetch deadline, its clamp, the caller's signal, and the connect timeout. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createHttpProxy } from "../../../host-proxies/http/index.js";
import { fetchUrl, grant, listen, rejectsWith, text } from "./_fixtures.js";

test("timeouts: a server that never answers hits the request's deadline; a prompt one is the control", async (t) => {
  const server = await listen(t, (req, res) => {
    if (req.url === "/fast") res.end("fast");
    // "/hang": never answers; "/drip": headers, then a byte now and then, never ending.
    if (req.url === "/drip") {
      res.write("a");
      const timer = setInterval(() => res.write("a"), 20);
      res.on("close", () => clearInterval(timer));
    }
  });
  const proxy = createHttpProxy(grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] }));
  for (const path of ["/hang", "/drip"]) {
    const started = Date.now();
    await rejectsWith(fetchUrl(proxy, server.url(path), { timeoutMs: 200 }), { tag: "io", message: "timed out after 200 ms" });
    // Well under the proxy's default (30 s): the request's own timeout cut it.
    assert.ok(Date.now() - started < 10_000, path);
  }
  // Control: a timeout does not cut an answer that comes before it (generous: a loaded machine
  // may take more than 200 ms to answer even a loopback request).
  assert.equal(text((await fetchUrl(proxy, server.url("/fast"), { timeoutMs: 10_000 })).body), "fast");
});

test("timeouts: the default applies, and a request cannot raise the proxy's maximum", async (t) => {
  const server = await listen(t, () => undefined);
  const g = grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] });
  await rejectsWith(fetchUrl(createHttpProxy(g, { defaultTimeoutMs: 150 }), server.url("/")), { tag: "io", message: "timed out after 150 ms" });
  const clamped = createHttpProxy(g, { defaultTimeoutMs: 100, maxTimeoutMs: 150 });
  await rejectsWith(fetchUrl(clamped, server.url("/"), { timeoutMs: 60_000 }), { tag: "io", message: "timed out after 150 ms" });
});

test("timeouts: the caller's signal cancels the fetch", async (t) => {
  const server = await listen(t, () => undefined);
  const proxy = createHttpProxy(grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] }));
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  await rejectsWith(fetchUrl(proxy, server.url("/"), {}, { signal: controller.signal }), { tag: "io", message: "cancelled" });
});

test("timeouts: a vetted address that never accepts fails within the connect timeout", async () => {
  // 192.0.2.10 is TEST-NET-1 (RFC 5737): unroutable, granted here only to pass vetting.
  const proxy = createHttpProxy(grant({ allow_addresses: ["192.0.2.10"] }), { connectTimeoutMs: 200 });
  const started = Date.now();
  await rejectsWith(fetchUrl(proxy, "http://192.0.2.10/", { timeoutMs: 30_000 }), { tag: "io" });
  // The connect timeout (200 ms), not the request's (30 s); bounded loosely for a loaded machine.
  assert.ok(Date.now() - started < 10_000);
});
