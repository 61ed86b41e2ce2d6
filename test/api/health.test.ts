import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { serve, type ServerType } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import { testRuntime } from "../helpers/runtime.js";

let server: ServerType;
let base: string;
let dispose: () => Promise<void>;

before(async () => {
  const made = await testRuntime();
  dispose = made.dispose;
  const tokens = await openTokenStore(made.runtime.store, { clock: made.runtime.clock });
  const app = createApp({ runtime: made.runtime, tokens, version: "test" });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await dispose();
});

test("GET /health answers over real HTTP", async () => {
  const response = await fetch(`${base}/health`);
  assert.equal(response.status, 200);
  const body = (await response.json()) as { status: string; tools: number; sandbox: { workers: number } };
  assert.equal(body.status, "ok");
  assert.ok(body.tools >= 6);
  // Workers start with the first instance: an idle runtime may have none yet.
  assert.ok(Number.isInteger(body.sandbox.workers) && body.sandbox.workers >= 0);
});

test("an unknown route is a JSON 404, never HTML or a stack", async () => {
  const response = await fetch(`${base}/nope/../../etc/passwd`);
  assert.equal(response.status, 404);
  const body = (await response.json()) as { error: { code: string } };
  assert.equal(body.error.code, "not_found");
});
