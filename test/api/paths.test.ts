import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import * as v from "valibot";
import { createApp } from "../../runtime/api/app.js";
import { requireRole } from "../../runtime/api/auth/index.js";
import { ID, NAME, pathParam, validParams } from "../../runtime/api/middleware/index.js";
import type { Store } from "../../runtime/store/index.js";
import { errorOf, listen, memoryTokens, raw, type Listening } from "./fixtures.js";

let store: Store;
let admin = "";
let server: Listening;
/** What the DELETE handler removed: a refused path must remove nothing. */
const deleted: string[] = [];

before(async () => {
  let tokens;
  ({ store, tokens } = await memoryTokens());
  admin = (await tokens.create("admin")).token;
  const app = createApp({ version: "test", tokens });
  app.delete("/v1/test/items/:name", requireRole("admin"), validParams(v.object({ name: NAME })), (c) => {
    const { name } = c.req.valid("param");
    deleted.push(name);
    return c.json({ deleted: name });
  });
  app.get("/v1/test/runs/:id", requireRole("admin"), (c) => c.json({ id: pathParam(c, "id", ID) }));
  app.get("/v1/test/secrets", requireRole("admin"), (c) => c.json({ secrets: "every one of them" }));
  server = await listen(app);
});
after(async () => {
  await server.close();
  await store.close();
});

const send = (method: string, path: string) => raw(server.port, { method, path, headers: { Authorization: `Bearer ${admin}` } });

describe("path parameters: traversal and ambiguity are refused, nothing changes", () => {
  // [raw request target, status, error code, field]
  const cases: Array<[string, number, string, string]> = [
    ["/v1/test/items/..", 400, "invalid_path", "path"],
    ["/v1/test/items/.", 400, "invalid_path", "path"],
    ["/v1/test/items/../secrets", 400, "invalid_path", "path"],
    ["/v1/test/items/x/../../secrets", 400, "invalid_path", "path"],
    ["/v1/test/items/%2e%2e", 400, "invalid_path", "path"],
    ["/v1/test/items/%2E%2E", 400, "invalid_path", "path"],
    ["/v1/test/items/.%2e", 400, "invalid_path", "path"],
    ["/v1/test/items/%2e.", 400, "invalid_path", "path"],
    ["/v1/test/items/%2e", 400, "invalid_path", "path"],
    ["/v1/test/items/%2e%2e/%2e%2e/secrets", 400, "invalid_path", "path"],
    ["/v1/test/items/..%2Fsecrets", 400, "invalid_path", "path"],
    ["/v1/test/items/..%2fsecrets", 400, "invalid_path", "path"],
    ["/v1/test/items/a%2Fb", 400, "invalid_path", "path"],
    ["/v1/test/items/a%5Cb", 400, "invalid_path", "path"],
    ["/v1/test//items/x", 400, "invalid_path", "path"],
    ["//v1/test/items/x", 400, "invalid_path", "path"],
    ["/v1/test/items/x%00", 400, "invalid_path", "path"],
    ["/v1/test/items/x%0d%0aX-Injected:%201", 400, "invalid_path", "path"],
    ["/v1/test/items/a%252e%252e", 400, "invalid_input", "path.name"],
    ["/v1/test/items/Upper", 400, "invalid_input", "path.name"],
    ["/v1/test/items/-leading-dash", 400, "invalid_input", "path.name"],
    ["/v1/test/items/a.b", 400, "invalid_input", "path.name"],
    ["/v1/test/items/%C3%A9t%C3%A9", 400, "invalid_input", "path.name"],
    [`/v1/test/items/${"a".repeat(64)}`, 400, "invalid_input", "path.name"],
  ];
  for (const [target, status, code, field] of cases) {
    it(`DELETE ${target.length > 60 ? `${target.slice(0, 57)}…` : target} → ${status} ${code}`, async () => {
      const response = await send("DELETE", target);
      assert.equal(response.status, status, response.text);
      const error = errorOf(response.text);
      assert.equal(error.code, code);
      assert.equal(error.field, field);
      assert.deepEqual(deleted, [], "nothing was deleted");
      assert.doesNotMatch(response.text, /every one of them/);
    });
  }

  it("a backslash never reaches a route", async () => {
    const response = await send("DELETE", "/v1/test/items/a\\b");
    assert.ok(response.status >= 400 && response.status < 500, `${response.status} ${response.text}`);
    assert.deepEqual(deleted, []);
  });

  it("controls: a good name, dots in the query, an id", async () => {
    assert.equal((await send("DELETE", "/v1/test/items/good-name")).status, 200);
    assert.equal((await send("DELETE", "/v1/test/items/x1?from=../../etc&to=%2e%2e")).status, 200);
    assert.deepEqual(deleted, ["good-name", "x1"]);
    const run = await send("GET", "/v1/test/runs/run_0b7c1e9e-5d0b-4a55-9d0e-1f1e2d3c4b5a");
    assert.equal(run.status, 200, run.text);
    assert.deepEqual(JSON.parse(run.text), { id: "run_0b7c1e9e-5d0b-4a55-9d0e-1f1e2d3c4b5a" });
  });

  it("an absolute-form request target is checked from its path on", async () => {
    const origin = `http://127.0.0.1:${server.port}`;
    const before = [...deleted];
    assert.equal((await send("GET", `${origin}/health`)).status, 200, "control");
    const response = await send("DELETE", `${origin}/v1/test/items/%2e%2e`);
    assert.equal(response.status, 400, response.text);
    assert.equal(errorOf(response.text).code, "invalid_path");
    assert.deepEqual(deleted, before);
  });

  it("ids are checked too", async () => {
    for (const target of ["/v1/test/runs/run_..%2fx", "/v1/test/runs/run", "/v1/test/runs/RUN_x", "/v1/test/runs/run_a%20b"]) {
      const response = await send("GET", target);
      assert.equal(response.status, 400, `${target}: ${response.text}`);
    }
  });
});
