/**
 * A log line written while a run's work or a served request is current names it (`run_id`,
 * `trace_id`, `span_id`), read when the line is written; a line outside says nothing of it; a
 * logger bound with its own `trace_id` keeps it, and never says a key twice.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { createLogger, withLogFields } from "../../runtime/log/index.js";

function capture(): { lines: () => string[]; stream: Writable } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString("utf8"));
      done();
    },
  });
  return { stream, lines: () => chunks.join("").split("\n").filter((l) => l !== "") };
}

const RUN = { run_id: "run_1", trace_id: "a".repeat(32) };

test("a line written in a scope has its fields, read at the line: the span current then; control: a line outside has none", async () => {
  const out = capture();
  const log = createLogger({ format: "json", destination: out.stream });
  let span = "1".repeat(16);
  log.info("before");
  await withLogFields(() => ({ ...RUN, span_id: span }), async () => {
    log.info("first");
    span = "2".repeat(16);
    await Promise.resolve();
    log.info("second");
  });
  log.info("after");
  const [before, first, second, after] = out.lines().map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(before!.run_id, undefined);
  assert.deepEqual([first!.run_id, first!.trace_id, first!.span_id], ["run_1", RUN.trace_id, "1".repeat(16)]);
  assert.equal(second!.span_id, "2".repeat(16));
  assert.equal(after!.span_id, undefined);
});

test("scopes nest: an inner field wins, an undefined one leaves the outer's", () => {
  const out = capture();
  const log = createLogger({ format: "json", destination: out.stream });
  withLogFields(() => ({ ...RUN, span_id: "1".repeat(16) }), () => withLogFields(() => ({ span_id: "3".repeat(16), trace_id: undefined }), () => log.info("inner")));
  const line = JSON.parse(out.lines()[0]!) as Record<string, unknown>;
  assert.deepEqual([line.run_id, line.trace_id, line.span_id], ["run_1", RUN.trace_id, "3".repeat(16)]);
});

test("a child bound with a trace id keeps it, once; the scope's span goes with it only in the same trace", () => {
  const out = capture();
  const log = createLogger({ format: "json", destination: out.stream });
  withLogFields(() => ({ ...RUN, span_id: "1".repeat(16) }), () => {
    log.child({ trace_id: RUN.trace_id }).info("same trace");
    log.child({ trace_id: "b".repeat(32) }).info("another trace");
  });
  const [same, other] = out.lines();
  assert.equal(same!.match(/"trace_id"/g)?.length, 1, same);
  assert.equal((JSON.parse(same!) as Record<string, unknown>).span_id, "1".repeat(16));
  assert.equal(other!.match(/"trace_id"/g)?.length, 1, other);
  const parsed = JSON.parse(other!) as Record<string, unknown>;
  assert.equal(parsed.trace_id, "b".repeat(32));
  assert.equal(parsed.span_id, undefined, "a span of another trace is not named beside this trace id");
  assert.equal(parsed.run_id, "run_1");
});
