/** Decoding, the decoded-size cap (decompression bombs), and response header caps. */
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { brotliCompressSync, constants, createBrotliCompress, deflateSync, gzipSync } from "node:zlib";
import { createHttpProxy } from "../../../host-proxies/http/index.js";
import type { HttpProxyOptions } from "../../../host-proxies/http/index.js";
import { fetchUrl, grant, listen, rejectsWith, responseHeader, text } from "./_fixtures.js";
import type { TestServer } from "./_fixtures.js";

const PLAIN = "hello, decoded world ".repeat(50);

// 100 MiB of zeros as a ~100 KiB gzip member, built once from one zeroed MiB repeated.
const BOMB_SIZE = 100 * 1024 * 1024;
const BOMB = (() => {
  const mib = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
  // gzip members concatenate (RFC 1952 §2.2): 100 members inflate to 100 MiB.
  return Buffer.concat(Array.from({ length: BOMB_SIZE / (1024 * 1024) }, () => mib));
})();

// 64 MiB of zeros as br, streamed from one zeroed MiB so building it costs little memory.
const BR_BOMB = await new Promise<Buffer>((resolve, reject) => {
  const chunks: Buffer[] = [];
  const br = createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });
  br.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve(Buffer.concat(chunks))).on("error", reject);
  const mib = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < 64; i++) br.write(mib);
  br.end();
});

function send(res: ServerResponse, body: Buffer, headers: Record<string, string | string[]> = {}): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.end(body);
}

async function bodies(t: TestContext): Promise<TestServer> {
  return listen(t, (req, res) => {
    const plain = Buffer.from(PLAIN);
    switch (req.url) {
      case "/gzip": return send(res, gzipSync(plain), { "content-encoding": "gzip" });
      case "/deflate": return send(res, deflateSync(plain), { "content-encoding": "deflate" });
      case "/br": return send(res, brotliCompressSync(plain), { "content-encoding": "br" });
      case "/gzip-gzip": return send(res, gzipSync(gzipSync(plain)), { "content-encoding": "gzip, gzip" });
      case "/triple": return send(res, gzipSync(gzipSync(gzipSync(plain))), { "content-encoding": "gzip, gzip, gzip" });
      case "/zstd": return send(res, plain, { "content-encoding": "zstd" });
      case "/corrupt": return send(res, Buffer.from("not gzip at all"), { "content-encoding": "gzip" });
      case "/bomb": return send(res, BOMB, { "content-encoding": "gzip" });
      case "/br-bomb": return send(res, BR_BOMB, { "content-encoding": "br" });
      case "/many-headers": return send(res, plain, Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`x-h${i}`, "v"])));
      case "/some-headers": return send(res, plain, Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`x-h${i}`, "v"])));
      case "/huge-header": return send(res, plain, { "x-big": "a".repeat(20_000) });
      case "/big-header": return send(res, plain, { "x-big": "a".repeat(1_000) });
      default: return send(res, plain, { "content-type": "text/plain" });
    }
  });
}

function proxyFor(server: TestServer, options: HttpProxyOptions = {}) {
  return createHttpProxy(grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] }), options);
}

test("body: gzip, deflate, br and nested codings are decoded, encoding headers dropped; identity is the control", async (t) => {
  const server = await bodies(t);
  const proxy = proxyFor(server);
  for (const path of ["/gzip", "/deflate", "/br", "/gzip-gzip", "/plain"]) {
    const response = await fetchUrl(proxy, server.url(path));
    assert.equal(text(response.body), PLAIN, path);
    assert.equal(response.truncated, false);
    assert.equal(responseHeader(response, "content-encoding"), undefined, path);
  }
  assert.equal(server.header(0, "accept-encoding"), "gzip, deflate, br");
});

test("body: an unknown coding is handed back undecoded with its header; a corrupt or too-deep one fails", async (t) => {
  const server = await bodies(t);
  const proxy = proxyFor(server);
  const zstd = await fetchUrl(proxy, server.url("/zstd"));
  assert.equal(responseHeader(zstd, "content-encoding"), "zstd");
  await rejectsWith(fetchUrl(proxy, server.url("/corrupt")), { tag: "io", message: "decode" });
  await rejectsWith(fetchUrl(proxy, server.url("/triple")), { tag: "io", message: "codings" });
});

test("body: a decompression bomb stops at the cap without inflating the rest", async (t) => {
  const server = await bodies(t);
  const cap = 1024 * 1024;
  const proxy = proxyFor(server, { maxResponseBytes: cap });
  const before = process.memoryUsage();
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers - before.arrayBuffers)), 1);
  try {
    for (const path of ["/bomb", "/br-bomb"]) {
      const response = await fetchUrl(proxy, server.url(path));
      assert.equal(response.truncated, true, path);
      assert.equal(response.body.byteLength, cap, path);
      assert.ok(response.body.every((b) => b === 0));
    }
  } finally {
    clearInterval(sampler);
  }
  // 100 MiB would have been inflated without the cap; allow for the bomb itself and chunking slack.
  console.log(`# bomb: peak external memory +${(peak / 1048576).toFixed(1)} MiB`);
  assert.ok(peak < 24 * 1024 * 1024, `peak external memory grew by ${(peak / 1048576).toFixed(1)} MiB`);
});

test("body: the request's maxBytes lowers the cap and never raises it", async (t) => {
  const server = await bodies(t);
  const proxy = proxyFor(server, { maxResponseBytes: 100 });
  const small = await fetchUrl(proxy, server.url("/gzip"), { maxBytes: 10n });
  assert.deepEqual([text(small.body), small.truncated], [PLAIN.slice(0, 10), true]);
  const big = await fetchUrl(proxy, server.url("/gzip"), { maxBytes: 1n << 40n });
  assert.deepEqual([big.body.byteLength, big.truncated], [100, true]);
  // Control: a cap exactly the body's size is not a truncation.
  const roomy = proxyFor(server);
  const exact = await fetchUrl(roomy, server.url("/plain"), { maxBytes: BigInt(PLAIN.length) });
  assert.deepEqual([text(exact.body), exact.truncated], [PLAIN, false]);
  const none = await fetchUrl(roomy, server.url("/plain"), { maxBytes: 0n });
  assert.deepEqual([none.body.byteLength, none.truncated], [0, true]);
});

test("body: response header count and size capped; within the caps is the control", async (t) => {
  const server = await bodies(t);
  const proxy = proxyFor(server, { maxResponseHeaders: 100, maxResponseHeaderBytes: 16 * 1024 });
  await rejectsWith(fetchUrl(proxy, server.url("/many-headers")), { tag: "io", message: "headers" });
  await rejectsWith(fetchUrl(proxy, server.url("/huge-header")), { tag: "io", message: "headers" });
  assert.equal((await fetchUrl(proxy, server.url("/some-headers"))).status, 200);
  assert.equal(responseHeader(await fetchUrl(proxy, server.url("/big-header")), "x-big")?.length, 1000);
});

test("body: HEAD returns no body even with a content-encoding", async (t) => {
  const server = await bodies(t);
  const response = await fetchUrl(proxyFor(server), server.url("/gzip"), { method: "HEAD" });
  assert.deepEqual([response.status, response.body.byteLength, response.truncated], [200, 0, false]);
});

// Without the hang-up the socket stays open until the fetch deadline (here 10 minutes), past this test's timeout.
test("body: a refused encoding closes the connection instead of leaving an endless body queued; a known one is the control", { timeout: 60_000 }, async (t) => {
  let closed = () => undefined as void;
  const hungUp = new Promise<void>((resolve) => (closed = resolve));
  const server = await listen(t, (req, res) => {
    if (req.url === "/ok") return send(res, gzipSync(Buffer.from(PLAIN)), { "content-encoding": "gzip" });
    res.writeHead(200, { "content-encoding": "gzip, gzip, gzip" });
    res.on("close", () => closed());
    const chunk = Buffer.alloc(64 * 1024);
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once("drain", pump);
    };
    pump();
  });
  const proxy = proxyFor(server, { maxTimeoutMs: 600_000, defaultTimeoutMs: 600_000 });
  await rejectsWith(fetchUrl(proxy, server.url("/endless")), { tag: "io", message: "codings" });
  await hungUp;
  assert.equal(text((await fetchUrl(proxy, server.url("/ok"))).body), PLAIN);
});
