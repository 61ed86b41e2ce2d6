import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { requireRole, type TokenStore } from "../../runtime/api/auth/index.js";
import type { Store } from "../../runtime/store/index.js";
import { errorOf, listen, memoryTokens, raw, type Listening } from "./fixtures.js";

const LIMIT = 1024;
let store: Store;
let tokens: TokenStore;
let client = "";
let server: Listening;
/** How many times the echo handler ran: a refused body must leave it unchanged. */
let ran = 0;

before(async () => {
  ({ store, tokens } = await memoryTokens());
  client = (await tokens.create("client")).token;
  const app = createApp({ version: "test", tokens, limits: { bodyLimitBytes: LIMIT } });
  app.post("/v1/test/echo", requireRole("client"), async (c) => {
    ran++;
    return c.json({ bytes: (await c.req.arrayBuffer()).byteLength });
  });
  server = await listen(app);
});
after(async () => {
  await server.close();
  await store.close();
});

function post(chunks: readonly (string | Buffer)[], options: { contentLength?: boolean; authorization?: string } = {}) {
  const size = chunks.reduce((sum, c) => sum + Buffer.byteLength(c), 0);
  return raw(server.port, {
    method: "POST",
    path: "/v1/test/echo",
    headers: {
      Authorization: options.authorization ?? `Bearer ${client}`,
      "Content-Type": "application/octet-stream",
      ...(options.contentLength === false ? {} : { "Content-Length": String(size) }),
    },
    chunks,
  });
}

const bytes = (n: number) => Buffer.alloc(n, 0x61);

describe("the body limit", () => {
  // [what, chunks, send Content-Length, status]
  const cases: Array<[string, Buffer[], boolean, number]> = [
    ["over the limit, with Content-Length", [bytes(LIMIT + 1)], true, 413],
    ["over the limit, chunked (no Content-Length)", [bytes(512), bytes(512), bytes(1)], false, 413],
    ["far over the limit, chunked: 8 MiB in 64 KiB chunks", Array.from({ length: 128 }, () => bytes(64 * 1024)), false, 413],
    ["control: at the limit, with Content-Length", [bytes(LIMIT)], true, 200],
    ["control: at the limit, chunked", [bytes(600), bytes(LIMIT - 600)], false, 200],
    ["control: empty, chunked", [], false, 200],
  ];
  for (const [what, chunks, contentLength, status] of cases) {
    it(`${what} → ${status}`, async () => {
      const before = ran;
      const response = await post(chunks, { contentLength });
      assert.equal(response.status, status, response.text);
      if (status === 413) {
        assert.equal(ran, before, "the handler never ran");
        const error = errorOf(response.text);
        assert.equal(error.code, "body_too_large");
        assert.match(error.message, /1024 bytes/);
        assert.equal(response.headers.connection, "close");
      } else {
        assert.equal(ran, before + 1);
        const size = chunks.reduce((sum, c) => sum + c.length, 0);
        assert.deepEqual(JSON.parse(response.text), { bytes: size }, "the handler reads the whole body the limit let through");
      }
    });
  }

  it("an unauthenticated body is refused before it is read (401, not 413)", async () => {
    const before = ran;
    const response = await post([bytes(LIMIT * 4)], { contentLength: false, authorization: "Bearer nope" });
    assert.equal(response.status, 401);
    assert.equal(ran, before);
  });

  it("the server still answers after refusing bodies", async () => {
    const response = await post([bytes(10)]);
    assert.equal(response.status, 200);
  });
});

describe("the concurrency cap", () => {
  let capped: Listening;
  let release: () => void = () => {};
  let entered = 0;
  let gate = new Promise<void>((resolve) => (release = resolve));

  before(async () => {
    const app = createApp({ version: "test", tokens, limits: { maxConcurrentRequests: 2, retryAfterSeconds: 3 } });
    app.get("/v1/test/hold", requireRole("client"), async (c) => {
      entered++;
      await gate;
      return c.json({ held: true });
    });
    capped = await listen(app);
  });
  after(() => capped.close());

  const hold = () => raw(capped.port, { path: "/v1/test/hold", headers: { Authorization: `Bearer ${client}` } });

  it("answers 429 with Retry-After while the cap is full, and serves again once requests finish", async () => {
    const held = [hold(), hold()];
    while (entered < 2) await new Promise((r) => setTimeout(r, 5));

    const refused = await hold();
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.headers["retry-after"], "3");
    assert.equal(errorOf(refused.text).code, "too_many_requests");
    assert.equal((await raw(capped.port, { path: "/health" })).status, 429, "the cap covers every route");
    assert.equal(entered, 2, "a refused request never reached its handler");

    release();
    for (const response of await Promise.all(held)) assert.equal(response.status, 200);
    gate = Promise.resolve();
    const control = await hold();
    assert.equal(control.status, 200, "control: a slot is free again");
  });

  it("a request that failed frees its slot", async () => {
    for (let i = 0; i < 5; i++) {
      assert.equal((await raw(capped.port, { path: "/v1/test/hold" })).status, 401);
    }
    assert.equal((await hold()).status, 200);
  });
});
