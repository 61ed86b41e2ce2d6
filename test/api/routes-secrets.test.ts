import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { errorOf } from "./fixtures.js";
import { apiFixture, BAD_PATH_NAMES, call, rawCall, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;
const VALUE = "sk-test-Zq8v2LmN0pR4sT6u";

before(async () => {
  f = await apiFixture();
});
after(() => f.close());

const state = async () => JSON.stringify(await Promise.all((await f.runtime.secrets.list()).map(async (s) => [s.name, s.updatedAt, await f.runtime.secrets.get(s.name)])));

test("PUT stores a secret; no answer ever holds its value; DELETE removes it", async () => {
  const created = await call(f, "PUT", "/v1/secrets/openai_api_key", { json: { value: VALUE } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.secret.name, "openai_api_key");
  assert.equal(created.body.redacted, true);
  const replaced = await call(f, "PUT", "/v1/secrets/openai_api_key", { json: { value: `${VALUE}-2` } });
  assert.equal(replaced.status, 200);
  assert.equal(await f.runtime.secrets.get("openai_api_key"), `${VALUE}-2`);
  const list = await call(f, "GET", "/v1/secrets");
  const one = await call(f, "GET", "/v1/secrets/openai_api_key");
  assert.deepEqual(list.body.secrets, [one.body.secret]);
  assert.deepEqual(Object.keys(one.body.secret).sort(), ["created_at", "name", "updated_at"]);
  for (const answer of [created, replaced, list, one]) assert.ok(!answer.text.includes(VALUE), answer.text);
  const short = await call(f, "PUT", "/v1/secrets/pin", { json: { value: "123" } });
  assert.equal(short.body.redacted, false, "too short to redact, and the answer says so");
  assert.equal((await call(f, "DELETE", "/v1/secrets/pin")).status, 200);
  assert.equal((await call(f, "GET", "/v1/secrets/pin")).status, 404);
  assert.equal((await call(f, "DELETE", "/v1/secrets/pin")).status, 404);
});

describe("bad input: the right 4xx, nothing stored, and the value never echoed", () => {
  const put = (json: unknown, name = "token") => () => call(f, "PUT", `/v1/secrets/${name}`, { json });
  type Case = [what: string, send: () => Promise<{ status: number; text: string }>, status: number, code: string, field?: string];
  const cases: Case[] = [
    ["a number as value", put({ value: 31415926535 }), 400, "invalid_input", "body.value"],
    ["the value as the whole body", put(VALUE), 400, "invalid_input", "body"],
    ["the value in an array", put([VALUE]), 400, "invalid_input"],
    ["no value", put({}), 400, "invalid_input", "body.value"],
    ["an empty value", put({ value: "" }), 400, "invalid_input", "body.value"],
    ["a value over 64 KiB", put({ value: "v".repeat(64 * 1024 + 1) }), 400, "invalid_input", "body.value"],
    ["a lone surrogate", () => call(f, "PUT", "/v1/secrets/token", { body: '{"value": "ab\\ud800cd"}', type: "application/json" }), 400, "invalid_input", "body.value"],
    ["an extra field", put({ value: VALUE, note: "x" }), 400, "invalid_input", "body.note"],
    ["malformed JSON around the value", () => call(f, "PUT", "/v1/secrets/token", { body: `{"value": "${VALUE}"`, type: "application/json" }), 400, "invalid_json", "body"],
    ["JSON with a bad token after the value", () => call(f, "PUT", "/v1/secrets/token", { body: `{"value": "${VALUE}" x}`, type: "application/json" }), 400, "invalid_json", "body"],
    ["not UTF-8", () => call(f, "PUT", "/v1/secrets/token", { body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), type: "application/json" }), 400, "invalid_json", "body"],
    ["text/plain", () => call(f, "PUT", "/v1/secrets/token", { body: VALUE, type: "text/plain" }), 415, "unsupported_media_type", "body"],
    ["over the 1 MiB body limit", () => rawCall(f, "PUT", "/v1/secrets/token", { type: "application/json", chunks: [Buffer.alloc(1024 * 1024 + 1, 0x20)], contentLength: true }), 413, "body_too_large"],
    ["chunked over the limit", () => rawCall(f, "PUT", "/v1/secrets/token", { type: "application/json", chunks: Array.from({ length: 9 }, () => Buffer.alloc(128 * 1024, 0x20)) }), 413, "body_too_large"],
    ["a name with a dot", put({ value: VALUE }, "a.b"), 400, "invalid_input", "path.name"],
    ["// in the path", () => rawCall(f, "PUT", "/v1/secrets//token", { type: "application/json", chunks: [JSON.stringify({ value: VALUE })] }), 400, "invalid_path", "path"],
    ...BAD_PATH_NAMES.map(([what, segment, code]): Case => [`${what} in :name`, () => rawCall(f, "PUT", `/v1/secrets/${segment}`, { type: "application/json", chunks: [JSON.stringify({ value: VALUE })] }), 400, code]),
  ];
  for (const [what, send, status, code, field] of cases) {
    test(`${what} → ${status} ${code}`, async () => {
      const before = await state();
      const answer = await send();
      assert.equal(answer.status, status, answer.text);
      const error = errorOf(answer.text);
      assert.equal(error.code, code, answer.text);
      if (field !== undefined) assert.equal(error.field, field, answer.text);
      for (const leak of [VALUE, "31415926535"]) assert.ok(!answer.text.includes(leak), `the answer repeats the value: ${answer.text}`);
      assert.equal(await state(), before);
    });
  }
});

test("secrets are for admins: approver and client tokens get 403, nothing stored", async () => {
  const before = await state();
  for (const token of [f.token.approver, f.token.client]) {
    for (const [method, path] of [["GET", "/v1/secrets"], ["GET", "/v1/secrets/x"], ["PUT", "/v1/secrets/x"], ["DELETE", "/v1/secrets/x"]] as const) {
      const answer = await call(f, method, path, { token, ...(method === "PUT" ? { json: { value: VALUE } } : {}) });
      assert.equal(answer.status, 403, `${method} ${path}`);
    }
  }
  assert.equal(await state(), before);
});
