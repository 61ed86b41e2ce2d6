import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { requireRole } from "../../runtime/api/auth/index.js";
import type { Store } from "../../runtime/store/index.js";
import { listen, memoryTokens, raw, type Listening, type RawResponse } from "./fixtures.js";

let store: Store;
let client = "";
let plain: Listening;
let allowing: Listening;
const CONSOLE = "https://console.example.com";

before(async () => {
  let tokens;
  ({ store, tokens } = await memoryTokens());
  client = (await tokens.create("client")).token;
  const off = createApp({ version: "test", tokens });
  off.get("/v1/test/client", requireRole("client"), (c) => c.json({ ok: true }));
  plain = await listen(off);
  const on = createApp({ version: "test", tokens, cors: { origins: [CONSOLE] } });
  on.get("/v1/test/client", requireRole("client"), (c) => c.json({ ok: true }));
  allowing = await listen(on);
});
after(async () => {
  await plain.close();
  await allowing.close();
  await store.close();
});

const corsHeaders = (response: RawResponse) => Object.keys(response.headers).filter((name) => name.startsWith("access-control-"));

function preflight(port: number, origin: string) {
  return raw(port, {
    method: "OPTIONS",
    path: "/v1/test/client",
    headers: { Origin: origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
  });
}

describe("CORS", () => {
  it("an empty allow-list is off too", async () => {
    const { tokens } = await memoryTokens();
    const app = createApp({ version: "test", tokens, cors: { origins: [] } });
    const response = await app.request("/health", { method: "OPTIONS", headers: { Origin: CONSOLE, "Access-Control-Request-Method": "GET" } });
    assert.deepEqual([...response.headers.keys()].filter((name) => name.startsWith("access-control-")), []);
  });

  it("is off by default: no Access-Control-* header on a request, an error or a preflight", async () => {
    const responses = [
      await raw(plain.port, { path: "/health", headers: { Origin: "https://evil.example" } }),
      await raw(plain.port, { path: "/v1/test/client", headers: { Origin: CONSOLE, Authorization: `Bearer ${client}` } }),
      await raw(plain.port, { path: "/v1/test/client", headers: { Origin: CONSOLE } }),
      await preflight(plain.port, CONSOLE),
    ];
    for (const response of responses) assert.deepEqual(corsHeaders(response), [], JSON.stringify(response.headers));
    assert.ok((responses[3]?.status ?? 0) >= 400, "a preflight is not answered 2xx");
  });

  it("with an allow-list, allows exactly those origins", async () => {
    const allowed = await preflight(allowing.port, CONSOLE);
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers["access-control-allow-origin"], CONSOLE);
    assert.match(String(allowed.headers["access-control-allow-headers"]), /Authorization/i);
    assert.equal(allowed.headers["access-control-allow-credentials"], undefined);

    const get = await raw(allowing.port, { path: "/v1/test/client", headers: { Origin: CONSOLE, Authorization: `Bearer ${client}` } });
    assert.equal(get.status, 200);
    assert.equal(get.headers["access-control-allow-origin"], CONSOLE);

    for (const origin of ["https://evil.example", "https://console.example.com.evil.example", "null", "http://console.example.com"]) {
      const refused = await raw(allowing.port, { path: "/v1/test/client", headers: { Origin: origin, Authorization: `Bearer ${client}` } });
      assert.equal(refused.headers["access-control-allow-origin"], undefined, origin);
    }
  });

  it("refuses a wildcard or malformed origin in the configuration", async () => {
    const { tokens } = await memoryTokens();
    for (const origin of ["*", "https://*.example.com", "https://console.example.com/", "console.example.com", "file:///x", "https://user@console.example.com"]) {
      assert.throws(() => createApp({ version: "test", tokens, cors: { origins: [origin] } }), RangeError, origin);
    }
  });
});
