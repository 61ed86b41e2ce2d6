/**
 * Structured logs: JSON lines with levels, a request id per API request (the caller's when it is
 * a plain token), the trace id of a valid traceparent, and no token or secret, whether it came
 * as a field or inside a message.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { createLogger, REDACTED } from "../../runtime/log/index.js";
import { apiFixture, type ApiFixture } from "../api/routes-fixtures.js";

function capture(): { lines: () => Array<Record<string, unknown>>; stream: Writable } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString("utf8"));
      done();
    },
  });
  return { stream, lines: () => chunks.join("").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe("redaction: secrets never reach the log", () => {
  const TOKEN = "chv_tok_abcdefghijklmnopqrstuvwxyz012345";
  const cases: Array<[what: string, write: (log: ReturnType<typeof createLogger>) => void, secret: string]> = [
    ["a token field", (log) => log.info({ token: "plain-secret-value" }, "x"), "plain-secret-value"],
    ["a nested authorization header", (log) => log.info({ req: { headers: { authorization: "Basic dXNlcjpwYXNz" } } }, "x"), "dXNlcjpwYXNz"],
    ["an API token inside a message", (log) => log.warn(`token ${TOKEN} was revoked`), TOKEN],
    ["a bearer credential inside a field", (log) => log.info({ detail: `sent Authorization: Bearer ${TOKEN}` }, "x"), TOKEN],
    ["a provider key in an error", (log) => log.error({ err: new Error("401 for key sk-live-0123456789abcdef") }, "failed"), "sk-live-0123456789abcdef"],
    ["a secret value field", (log) => log.info({ secret: { value: "hunter2-hunter2" } }, "x"), "hunter2-hunter2"],
  ];
  for (const [what, write, secret] of cases) {
    test(what, () => {
      const out = capture();
      write(createLogger({ format: "json", destination: out.stream }));
      const text = JSON.stringify(out.lines());
      assert.ok(!text.includes(secret), text);
      assert.ok(text.includes(REDACTED), text);
    });
  }
  test("control: ordinary fields and messages are kept", () => {
    const out = capture();
    createLogger({ format: "json", destination: out.stream }).info({ run_id: "run_1", tool: "files.read_file" }, "tool call ok");
    const [line] = out.lines();
    assert.equal(line?.run_id, "run_1");
    assert.equal(line?.msg, "tool call ok");
    assert.equal(line?.level, "info");
    assert.equal(typeof line?.time, "string");
  });
  test("levels: below the configured level nothing is written", () => {
    const out = capture();
    const log = createLogger({ level: "warn", format: "json", destination: out.stream });
    log.info("quiet");
    log.error("loud");
    assert.deepEqual(out.lines().map((l) => [l.level, l.msg]), [["error", "loud"]]);
  });
});

describe("a request id per API request", () => {
  let f: ApiFixture;
  const out = capture();
  before(async () => {
    f = await apiFixture({ app: { logger: createLogger({ level: "info", format: "json", destination: out.stream }) } });
  });
  after(() => f.close());

  const get = (headers: Record<string, string>) => fetch(`${f.server.base}/v1/runs`, { headers: { authorization: `Bearer ${f.token.admin}`, ...headers } });

  test("a new id when none is given, answered back and on the request's log line (without the token)", async () => {
    const response = await get({});
    const id = response.headers.get("x-request-id");
    assert.match(id ?? "", /^[0-9a-f-]{36}$/);
    const line = out.lines().find((l) => l.request_id === id);
    assert.ok(line, JSON.stringify(out.lines()));
    assert.equal(line.status, 200);
    assert.equal(line.path, "/v1/runs");
    assert.ok(!JSON.stringify(out.lines()).includes(f.token.admin));
  });
  test("the caller's id is kept; a malformed one is replaced", async () => {
    assert.equal((await get({ "x-request-id": "req-42.a" })).headers.get("x-request-id"), "req-42.a");
    const replaced = (await get({ "x-request-id": "a b<script>" })).headers.get("x-request-id");
    assert.notEqual(replaced, "a b<script>");
    assert.match(replaced ?? "", /^[0-9a-f-]{36}$/);
  });
  test("a valid traceparent puts its trace id on the line; a malformed one does not", async () => {
    const good = await get({ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" });
    const bad = await get({ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-zz-01" });
    const byId = (r: Response) => out.lines().find((l) => l.request_id === r.headers.get("x-request-id"));
    assert.equal(byId(good)?.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
    assert.equal(byId(bad)?.trace_id, undefined);
    assert.equal(bad.status, 200);
  });
});
