/**
 * `HttpProxy.open`: the body is handed on as it arrives — a part is readable before the server
 * has sent the rest — with the bounds of `fetch`: every form of a credential the exchange sent is
 * redacted even when the server splits it across many writes, the cap ends the stream with an
 * error, and gzip is decoded. Each beside a control.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { createHttpProxy, REDACTED } from "../../../host-proxies/http/index.js";
import { grant, listen, resolverOf } from "./_fixtures.js";

const SECRET = "stream-s3cret-value-0042";
const resolveSecret = async () => SECRET;

async function readAll(body: ReadableStream<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}

function proxyFor(port: number, options: { maxResponseBytes?: number } = {}) {
  const g = grant({ ports: [port], allow_addresses: ["127.0.0.1"], credentials: [{ host: "api.test", secret: "t" }] });
  return createHttpProxy(g, { resolver: resolverOf({ "api.test": ["127.0.0.1"] }).resolver, resolveSecret, ...options });
}

const open = (proxy: ReturnType<typeof proxyFor>, port: number, path: string) => proxy.open(proxy.canonicalize({ method: "GET", url: `http://api.test:${port}${path}`, headers: [] }).canonical);

test("a part is readable before the server sends the rest", async (t) => {
  let release: () => void = () => undefined;
  const more = new Promise<void>((resolve) => (release = resolve));
  const server = await listen(t, async (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("data: first\n\n");
    await more;
    res.end("data: second\n\n");
  });
  const response = await open(proxyFor(server.port), server.port, "/");
  const reader = response.body.getReader();
  const first = await reader.read();
  assert.equal(Buffer.from(first.value!).toString(), "data: first\n\n", "read while the server still holds the rest");
  release();
  let rest = "";
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += Buffer.from(chunk.value).toString();
  assert.equal(rest, "data: second\n\n");
});

test("a credential split across writes, one byte each, is redacted; control: text beside it passes whole", async (t) => {
  const server = await listen(t, async (req, res) => {
    const echoed = `before ${String(req.headers.authorization)} after ${encodeURIComponent(String(req.headers.authorization))} end`;
    res.writeHead(200, { "content-type": "text/plain" });
    for (const char of echoed) {
      res.write(char);
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });
  const text = await readAll((await open(proxyFor(server.port), server.port, "/")).body);
  assert.ok(!text.includes("s3cret"), text);
  assert.equal(text, `before Bearer ${REDACTED} after Bearer%20${REDACTED} end`);
});

test("past the cap the stream errors; control: under it, it ends; gzip is decoded", async (t) => {
  const server = await listen(t, (req, res) => {
    if (req.url === "/gz") {
      res.writeHead(200, { "content-encoding": "gzip" });
      return res.end(gzipSync("x".repeat(1000)));
    }
    res.writeHead(200);
    res.end("y".repeat(req.url === "/big" ? 5000 : 100));
  });
  const proxy = proxyFor(server.port, { maxResponseBytes: 1024 });
  assert.equal((await readAll((await open(proxy, server.port, "/small")).body)).length, 100);
  assert.equal(await readAll((await open(proxy, server.port, "/gz")).body), "x".repeat(1000));
  await assert.rejects(readAll((await open(proxy, server.port, "/big")).body), /over 1024 bytes/);
  const gzBomb = createHttpProxy(grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] }), { resolver: resolverOf({ "api.test": ["127.0.0.1"] }).resolver, maxResponseBytes: 512 });
  await assert.rejects(readAll((await open(gzBomb as ReturnType<typeof proxyFor>, server.port, "/gz")).body), /over 512 bytes/, "the cap counts decoded bytes");
});
