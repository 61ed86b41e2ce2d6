/**
 * `model.tool_protocol` and `model.tool_call_attempts` through `PUT /v1/agents/:name`: a text
 * agent is stored and read back as sent; an unknown protocol or an attempt count out of range is
 * a 400 naming the field, and nothing is stored.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { errorOf } from "./fixtures.js";
import { apiFixture, call, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;

before(async () => (f = await apiFixture()));
after(() => f.close());

function agent(name: string, model: Record<string, unknown>): Record<string, unknown> {
  return {
    name,
    description: "a model without native tool calling",
    model: { provider: "openai-compatible", id: "small-model", base_url: "http://127.0.0.1:9/v1", ...model },
    system_prompt: "test",
    plugins: [{ name: "files", version: "*", tools: ["read_file"] }],
    grants: { log: {} },
  };
}

test("control: a text-protocol agent is stored and read back with its protocol", async () => {
  const put = await call(f, "PUT", "/v1/agents/texty", { json: agent("texty", { tool_protocol: "text", tool_call_attempts: 2 }) });
  assert.ok(put.status === 200 || put.status === 201, put.text);
  const got = await call(f, "GET", "/v1/agents/texty");
  assert.equal(got.status, 200, got.text);
  const stored = (JSON.parse(got.text) as { agent: { manifest: { model: Record<string, unknown> } | null } }).agent.manifest?.model;
  assert.equal(stored?.tool_protocol, "text");
  assert.equal(stored?.tool_call_attempts, 2);
});

const refused: Array<[what: string, model: Record<string, unknown>, field: string]> = [
  ["an unknown protocol", { tool_protocol: "xml" }, "body.model.tool_protocol"],
  ["no attempts at all", { tool_protocol: "text", tool_call_attempts: 0 }, "body.model.tool_call_attempts"],
  ["a fractional attempt count", { tool_protocol: "text", tool_call_attempts: 1.5 }, "body.model.tool_call_attempts"],
];
for (const [what, model, field] of refused) {
  test(`${what} → 400 naming ${field}, nothing stored`, async () => {
    const put = await call(f, "PUT", "/v1/agents/refused", { json: agent("refused", model) });
    assert.equal(put.status, 400, put.text);
    const error = errorOf(put.text);
    assert.equal(error.code, "invalid_input");
    assert.equal(error.field, field);
    assert.equal((await call(f, "GET", "/v1/agents/refused")).status, 404);
  });
}
