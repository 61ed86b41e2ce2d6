import assert from "node:assert/strict";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { createHttpProxy, HTTP_HOST_FUNCTION_NAMES, httpHostFunctions } from "../../../host-proxies/http/index.js";
import type { FetchOptions, HttpResponse } from "../../../host-proxies/http/index.js";
import { bytes, grant, listen, rejectsWith, text } from "./_fixtures.js";
import type { TestServer } from "./_fixtures.js";

type HostFunction = (args: unknown[]) => Promise<unknown>;

async function setup(t: TestContext, options: FetchOptions = {}): Promise<{ fetch: HostFunction; server: TestServer }> {
  const server = await listen(t, (req, res, seen) => {
    if (req.url === "/moved") {
      res.statusCode = 307;
      res.setHeader("location", "/here");
      return res.end();
    }
    res.end(`${seen.method} ${seen.body}`);
  });
  const proxy = createHttpProxy(grant({ ports: [server.port], allow_addresses: ["127.0.0.1"] }));
  const fetch = httpHostFunctions(proxy, options).fetch;
  assert.ok(fetch !== undefined);
  return { fetch, server };
}

/** A request record exactly as jco lifts it: every field present, options undefined. */
const record = (url: string, extra: Record<string, unknown> = {}) => ({
  method: "GET", url, headers: [], body: undefined, timeoutMs: undefined, maxBytes: undefined, followRedirects: undefined, ...extra,
});

test("httpHostFunctions: one function per WIT import, on a frozen null-prototype table", async (t) => {
  const server = await listen(t, (_q, res) => res.end());
  const table = httpHostFunctions(createHttpProxy(grant({ ports: [server.port] })));
  assert.deepEqual(Object.keys(table), [...HTTP_HOST_FUNCTION_NAMES]);
  for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty"]) assert.equal(table[name], undefined, name);
  assert.ok(Object.isFrozen(table));
});

test("httpHostFunctions: a jco-shaped request in, a WIT response record out", async (t) => {
  const { fetch, server } = await setup(t);
  const response = (await fetch([record(server.url("/x"), { method: "post", body: bytes("hi"), maxBytes: 100n, timeoutMs: 5000, headers: [{ name: "X-A", value: "1" }] })])) as HttpResponse;
  assert.deepEqual(Object.keys(response).sort(), ["body", "headers", "redirects", "status", "truncated", "url"]);
  assert.equal(text(response.body), "POST hi");
  assert.ok(response.body instanceof Uint8Array);
  assert.equal(server.header(0, "x-a"), "1");
});

test("httpHostFunctions: redirects are decided by the checkHop it was given", async (t) => {
  const deny = { capability: "http.fetch", reason: "narrowed-by-task", message: "no" };
  const { fetch, server } = await setup(t, { checkHop: () => deny });
  await rejectsWith(fetch([record(server.url("/moved"))]), { tag: "denied", reason: "narrowed-by-task" });
  const control = await setup(t);
  assert.equal(((await control.fetch([record(control.server.url("/moved"))])) as HttpResponse).redirects, 1);
});

type ArgRow = [why: string, args: unknown];

const ARG_ROWS: ArgRow[] = [
  ["no arguments", []],
  ["two arguments", [record("http://127.0.0.1/"), 1]],
  ["args not an array", record("http://127.0.0.1/")],
  ["request is a string", ["http://127.0.0.1/"]],
  ["request is null", [null]],
  ["method a number", [record("http://127.0.0.1/", { method: 1 })]],
  ["url missing", [record("http://127.0.0.1/", { url: undefined })]],
  ["headers an object", [record("http://127.0.0.1/", { headers: { a: "1" } })]],
  ["header value a number", [record("http://127.0.0.1/", { headers: [{ name: "a", value: 1 }] })]],
  ["header with an extra field", [record("http://127.0.0.1/", { headers: [{ name: "a", value: "1", raw: "x" }] })]],
  ["body a string", [record("http://127.0.0.1/", { method: "POST", body: "x" })]],
  ["body a plain array", [record("http://127.0.0.1/", { method: "POST", body: [1] })]],
  ["timeoutMs negative", [record("http://127.0.0.1/", { timeoutMs: -1 })]],
  ["timeoutMs fractional", [record("http://127.0.0.1/", { timeoutMs: 1.5 })]],
  ["maxBytes a number", [record("http://127.0.0.1/", { maxBytes: 10 })]],
  ["maxBytes above u64", [record("http://127.0.0.1/", { maxBytes: 1n << 64n })]],
  ["followRedirects a string", [record("http://127.0.0.1/", { followRedirects: "yes" })]],
  ["an unknown field", [{ ...record("http://127.0.0.1/"), proxy: "http://evil/" }]],
];

test("httpHostFunctions: malformed arguments are invalid-input; the well-formed call is the control", async (t) => {
  const { fetch, server } = await setup(t);
  for (const [why, args] of ARG_ROWS) await rejectsWith(fetch(args as unknown[]), { tag: "invalid-input", message: "" }).catch((err) => assert.fail(`${why}: ${String(err)}`));
  assert.equal(server.seen.length, 0);
  const response = (await fetch([record(server.url("/"), { maxBytes: 5n, followRedirects: false })])) as HttpResponse;
  assert.equal(text(response.body), "GET ");
});
