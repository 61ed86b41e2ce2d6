import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import * as v from "valibot";
import { createApp } from "../../runtime/api/app.js";
import { requireRole } from "../../runtime/api/auth/index.js";
import { jsonBody, NAME } from "../../runtime/api/middleware/index.js";
import { InvalidInputError, NotFoundError, SandboxError } from "../../runtime/errors.js";
import { StoreError, type Store } from "../../runtime/store/index.js";
import { errorOf, listen, memoryTokens, raw, type Listening } from "./fixtures.js";

let store: Store;
let client = "";
let server: Listening;
const logged: unknown[] = [];
let ran = 0;

const StartRun = v.object({ agent: NAME, task: v.optional(v.pipe(v.string(), v.maxLength(100))), grants: v.optional(v.object({ fs: v.optional(v.array(v.string())) })) });

before(async () => {
  let tokens;
  ({ store, tokens } = await memoryTokens());
  client = (await tokens.create("client")).token;
  const app = createApp({ version: "test", tokens, log: (error) => logged.push(error) });
  app.post("/v1/test/runs", requireRole("client"), jsonBody(StartRun), (c) => {
    ran++;
    return c.json({ started: c.req.valid("json").agent });
  });
  app.get("/v1/test/boom", requireRole("client"), () => {
    throw new Error("secret detail: /home/operator/.clawhive/clawhive.db");
  });
  app.get("/v1/test/type-error", requireRole("client"), (c) => c.json((undefined as unknown as { x: { y: number } }).x.y));
  app.get("/v1/test/rejects", requireRole("client"), async () => Promise.reject("a string, not an Error"));
  app.get("/v1/test/store-failed", requireRole("client"), () => {
    throw new StoreError("store_failed", "store file:/srv/secret/clawhive.db: SQLITE_IOERR: disk I/O error");
  });
  app.get("/v1/test/store-busy", requireRole("client"), () => {
    throw new StoreError("store_busy", "store file:/srv/secret/clawhive.db: SQLITE_BUSY");
  });
  app.get("/v1/test/invalid", requireRole("client"), () => {
    throw new InvalidInputError("agent mail: grants.fs.read.mounts[0].host: directory does not exist", { field: "agent" });
  });
  app.get("/v1/test/missing", requireRole("client"), () => {
    throw new NotFoundError("run run_x: not found");
  });
  app.get("/v1/test/sandbox", requireRole("client"), () => {
    throw new SandboxError("deadline_exceeded", "tool files.read_file: deadline of 5000 ms exceeded");
  });
  app.get("/v1/test/vali", requireRole("client"), () => {
    v.parse(StartRun, { agent: 7 });
    return new Response("unreachable");
  });
  server = await listen(app);
});
after(async () => {
  await server.close();
  await store.close();
});

const auth = () => ({ Authorization: `Bearer ${client}` });
const get = (path: string) => raw(server.port, { path, headers: auth() });
const postJson = (body: string, contentType = "application/json") =>
  raw(server.port, { method: "POST", path: "/v1/test/runs", headers: { ...auth(), "Content-Type": contentType, "Content-Length": String(Buffer.byteLength(body)) }, chunks: [body] });

describe("errors: a 500 shows nothing of the failure", () => {
  for (const path of ["/v1/test/boom", "/v1/test/type-error", "/v1/test/rejects"]) {
    it(`${path} → 500 {code: internal, message: internal error}`, async () => {
      const before = logged.length;
      const response = await get(path);
      assert.equal(response.status, 500);
      assert.deepEqual(JSON.parse(response.text), { error: { code: "internal", message: "internal error" } });
      assert.equal(response.headers["content-type"], "application/json");
      assert.equal(logged.length, before + 1, "the operator's log gets the error");
    });
  }

  it("a store failure keeps its code but not the driver's text (it names files)", async () => {
    const failed = await get("/v1/test/store-failed");
    assert.equal(failed.status, 500);
    assert.equal(errorOf(failed.text).code, "store_failed");
    assert.doesNotMatch(failed.text, /srv|SQLITE|clawhive\.db/);
    const busy = await get("/v1/test/store-busy");
    assert.equal(busy.status, 503);
    assert.equal(busy.headers["retry-after"], "1");
    assert.doesNotMatch(busy.text, /srv|SQLITE/);
  });

  it("controls: ClawhiveErrors answer their status, code, message and field", async () => {
    const cases: Array<[string, number, { code: string; message: string; field?: string }]> = [
      ["/v1/test/invalid", 400, { code: "invalid_input", message: "agent mail: grants.fs.read.mounts[0].host: directory does not exist", field: "agent" }],
      ["/v1/test/missing", 404, { code: "not_found", message: "run run_x: not found" }],
      ["/v1/test/sandbox", 500, { code: "deadline_exceeded", message: "tool files.read_file: deadline of 5000 ms exceeded" }],
    ];
    for (const [path, status, error] of cases) {
      const response = await get(path);
      assert.equal(response.status, status, path);
      assert.deepEqual(JSON.parse(response.text), { error });
    }
  });

  it("a valibot failure thrown by a handler is a 400 naming the field", async () => {
    const response = await get("/v1/test/vali");
    assert.equal(response.status, 400);
    assert.equal(errorOf(response.text).field, "input.agent");
  });

  it("an unknown route is a JSON 404", async () => {
    const response = await raw(server.port, { path: "/nope" });
    assert.equal(response.status, 404);
    assert.equal(errorOf(response.text).code, "not_found");
  });

  it("every response says nosniff and no-store", async () => {
    for (const path of ["/health", "/nope", "/v1/test/boom"]) {
      const response = await get(path);
      assert.equal(response.headers["x-content-type-options"], "nosniff", path);
      assert.equal(response.headers["cache-control"], "no-store", path);
    }
  });
});

describe("JSON bodies", () => {
  // [what, body, content type, status, code, field]
  const cases: Array<[string, string, string, number, string, string]> = [
    ["malformed JSON", '{"agent":', "application/json", 400, "invalid_json", "body"],
    ["not JSON at all", "agent=mail", "application/json", 400, "invalid_json", "body"],
    ["an empty body", "", "application/json", 400, "invalid_json", "body"],
    ["JSON, but declared as form data", '{"agent":"mail"}', "application/x-www-form-urlencoded", 415, "unsupported_media_type", "body"],
    ["JSON with no content type", '{"agent":"mail"}', "", 415, "unsupported_media_type", "body"],
    ["a missing field", "{}", "application/json", 400, "invalid_input", "body.agent"],
    ["a field of the wrong type", '{"agent":7}', "application/json", 400, "invalid_input", "body.agent"],
    ["a bad name", '{"agent":"../mail"}', "application/json", 400, "invalid_input", "body.agent"],
    ["a nested field", '{"agent":"mail","grants":{"fs":[1]}}', "application/json", 400, "invalid_input", "body.grants.fs.0"],
    ["a string, not an object", '"mail"', "application/json", 400, "invalid_input", "body"],
  ];
  for (const [what, body, type, status, code, field] of cases) {
    it(`${what} → ${status} ${code} (${field})`, async () => {
      const before = ran;
      const response = await postJson(body, type);
      assert.equal(response.status, status, response.text);
      const error = errorOf(response.text);
      assert.equal(error.code, code);
      assert.equal(error.field, field);
      assert.equal(ran, before, "the handler never ran");
    });
  }

  it("a body nested 20,000 deep → 400 json_too_deep naming where, before it is parsed; control: 60 deep reaches validation", async () => {
    const before = ran;
    const deep = await postJson(`{"agent":"mail","grants":{"x":${"[".repeat(20_000)}${"]".repeat(20_000)}}}`);
    assert.equal(deep.status, 400, deep.text);
    const error = errorOf(deep.text);
    assert.equal(error.code, "json_too_deep");
    assert.match(error.field ?? "", /^body\.grants\.x\[0\]\[0\]/);
    assert.match(error.message, /nested more than 64 levels deep/);
    assert.equal(ran, before, "the handler never ran");
    const control = await postJson(`{"agent":"mail","grants":{"x":${"[".repeat(60)}${"]".repeat(60)}}}`);
    assert.equal(control.status, 200, control.text);
  });

  it("controls: a valid body, also with a charset parameter", async () => {
    assert.deepEqual(JSON.parse((await postJson('{"agent":"mail","task":"hi"}')).text), { started: "mail" });
    assert.equal((await postJson('{"agent":"mail"}', "application/json; charset=utf-8")).status, 200);
  });

  it("the message names the field but does not echo a long value", async () => {
    const response = await postJson(JSON.stringify({ agent: "mail", task: "sk-live-".padEnd(500, "x") }));
    assert.equal(response.status, 400);
    assert.equal(errorOf(response.text).field, "body.task");
    assert.doesNotMatch(response.text, /sk-live/);
  });
});
