import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import { Runtime } from "../../runtime/index.js";
import type { RunRecord } from "../../runtime/runs/records.js";
import { openStore, StoreError } from "../../runtime/store/index.js";
import { FaultyStore, isWrite, type Fault } from "../helpers/faulty-store.js";
import { defineTestAgent, FILES_PLUGIN, PROBE_PLUGIN, tempDataDir } from "../helpers/runtime.js";

/**
 * Whatever fails inside the runtime while a run is driven ends the run (failed, with the code
 * on its finish Step and in its result) or is retried; a run is never left active with nothing
 * driving it. The store is a real file wrapped to fail chosen statements.
 */
let dataDir: string;
let work: string;
let store: FaultyStore;
let runtime: Runtime;
let agent: string;

before(async () => {
  dataDir = await tempDataDir("clawhive-stuck-");
  work = join(dataDir, "work");
  await mkdir(work);
  await mkdir(join(dataDir, "agents"));
  store = new FaultyStore(await openStore({ url: `file:${join(dataDir, "clawhive.db")}` }));
  runtime = await Runtime.create({ dataDir, agentsDir: join(dataDir, "agents"), pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], store, sandbox: { poolSize: 0 } });
  agent = await defineTestAgent(runtime, "worker", { plugins: ["probe", "files"], mounts: [{ guest: "/w", host: work, mode: "rw" }], lowerToSafe: ["files.write_file"] });
});
afterEach(() => store.clear());
after(async () => {
  await runtime.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** A plan with an effect between two calls that make none. */
function plan(tag: string): Array<{ name: string; input: unknown }> {
  return [
    { name: "probe.echo", input: { tag } },
    { name: "files.write_file", input: { path: `/w/${tag}.txt`, content: tag } },
    { name: "probe.echo", input: { done: tag } },
  ];
}

/** Submits and waits: the run's id (undefined when the submission itself was refused) and what `settled` rejected with. */
async function drive(calls: Array<{ name: string; input: unknown }>): Promise<{ id: string | undefined; error: unknown }> {
  try {
    const { run, settled } = await runtime.submitRun({ agent, toolCalls: calls });
    const error = await settled.then(
      () => undefined,
      (e: unknown) => e,
    );
    await runtime.idle();
    return { id: run.id, error };
  } catch (error) {
    return { id: undefined, error };
  }
}

async function unended(): Promise<RunRecord[]> {
  return (await runtime.records.list({ limit: 1000 })).filter((r) => r.status !== "ended");
}

async function finishReasons(id: string): Promise<string[]> {
  const events = await runtime.events.list(id, { limit: 5000 });
  return events.flatMap((e) => (e.data.type === "step" && e.data.action === "finish" && e.data.reason !== undefined ? [e.data.reason] : []));
}

test("a store that is busy at any one statement of a run's life never leaves the run active", async () => {
  const start = store.count;
  const reference = await drive(plan("reference"));
  assert.equal(reference.error, undefined);
  assert.equal((await runtime.records.get(reference.id!))?.endReason, "completed", "control: no fault, the run completes");
  const statements = store.count - start;
  assert.ok(statements > 10, `a run of three calls runs ${statements} statements`);
  const ended = { completed: 0, failed: 0, refused: 0 };
  for (let n = 1; n <= statements; n++) {
    store.clear();
    store.fail({ kind: "busy", skip: n - 1, times: 1 });
    const { id, error } = await drive(plan(`busy-${n}`));
    store.clear();
    if (id === undefined) {
      // Refused before the run existed: the caller is told, nothing was started.
      assert.ok(error instanceof StoreError && error.code === "store_busy", `statement ${n}: ${String(error)}`);
      ended.refused++;
    } else {
      assert.equal(error, undefined, `statement ${n}: a fault that passes is recorded, not thrown: ${String(error)}`);
      const record = await runtime.records.get(id);
      assert.equal(record?.status, "ended", `statement ${n}: the run is ended`);
      assert.equal(runtime.getRun(id), undefined, `statement ${n}: nothing is left running`);
      if (record.endReason === "failed") {
        assert.match(record.result ?? "", /store_busy|audit_write_failed/, `statement ${n}: the result says why`);
        assert.equal((await finishReasons(id)).length, 1, `statement ${n}: one finish Step`);
        ended.failed++;
      } else ended.completed++;
    }
    assert.deepEqual((await unended()).map((r) => r.id), [], `statement ${n}: no run is left unended`);
  }
  assert.ok(ended.failed > 0 && ended.completed > 0, JSON.stringify(ended));
});

const isStatement = (pattern: RegExp) => (sql: string) => pattern.test(sql);

const INJECTIONS: Array<{ name: string; fault: Fault; code: string | null }> = [
  { name: "the store is busy writing where the plan stands", fault: { kind: "busy", match: isStatement(/UPDATE runs SET plan_next/), times: 1 }, code: "store_busy" },
  { name: "a serialiser throws while the plan's progress is written", fault: { kind: "serialise", match: isStatement(/UPDATE runs SET plan_next/), times: 1 }, code: "runtime_error" },
  { name: "the audit log refuses every record", fault: { kind: "full", match: isStatement(/INSERT INTO audit_records/) }, code: "audit_write_failed" },
  { name: "the disk is full for the run's events", fault: { kind: "full", match: isStatement(/INSERT INTO run_events/) }, code: null },
  { name: "the store is busy when the run's end is written (retried)", fault: { kind: "busy", match: isStatement(/SET status = 'ended'/), times: 2 }, code: null },
  { name: "control: no fault", fault: { kind: "busy", match: () => false }, code: null },
];

for (const row of INJECTIONS) {
  test(`injected: ${row.name} → ${row.code === null ? "the run completes" : `failed with ${row.code}`}`, async () => {
    store.fail(row.fault);
    const tag = `row-${INJECTIONS.indexOf(row)}`;
    const { id, error } = await drive(plan(tag));
    store.clear();
    assert.equal(error, undefined, String(error));
    const record = (await runtime.records.get(id!))!;
    assert.equal(record.status, "ended");
    assert.equal(runtime.getRun(id!), undefined);
    if (row.code === null) {
      assert.equal(record.endReason, "completed", record.result ?? "");
    } else {
      assert.equal(record.endReason, "failed");
      assert.match(record.result ?? "", new RegExp(`the run failed: ${row.code}`));
      assert.deepEqual(await finishReasons(id!), [row.code]);
    }
    // An audit log that refused records means no effect was made.
    if (row.code === "audit_write_failed") assert.equal(existsSync(join(work, `${tag}.txt`)), false);
    assert.deepEqual(await unended(), []);
  });
}

test("a store that keeps failing after the run's effect: the caller is told the effect happened; the tick records the end once the store is back", async () => {
  const target = join(work, "committed.txt");
  // Every write fails from the moment the file exists: the disk filled up right after the effect.
  store.fail({ kind: "full", match: (sql) => isWrite(sql) && existsSync(target) });
  const { id, error } = await drive([
    { name: "files.write_file", input: { path: "/w/committed.txt", content: "once" } },
    { name: "probe.echo", input: { after: true } },
  ]);
  assert.equal(await readFile(target, "utf8"), "once");
  assert.equal((error as { code?: string }).code, "effect_committed_store_failed", String(error));
  const details = (error as { details: { run_id: string; effects: Array<{ tool: string; capability: string; outcome: { status: string; error?: { kind: string } } | null }> } }).details;
  assert.equal(details.run_id, id);
  // The effect is said; its ToolCall's result is withheld, since its outcome record could not be
  // made durable (a ToolCall's result waits for every record of it: docs/security.md).
  assert.deepEqual(details.effects.map((e) => [e.tool, e.capability, e.outcome?.status, e.outcome?.error?.kind]), [["files.write_file", "fs.write", "error", "audit-failed"]]);
  assert.match((error as Error).message, /do not submit it again/);
  assert.equal((await runtime.records.get(id!))?.status, "active", "the store refused the end");
  assert.equal(runtime.getRun(id!), undefined, "nothing runs it any more");

  store.clear();
  await runtime.driverTick();
  const record = (await runtime.records.get(id!))!;
  assert.equal(record.status, "ended");
  assert.equal(record.endReason, "failed");
  assert.match(record.result ?? "", /effects already made: fs\.write by files\.write_file/);
  assert.equal((await runtime.audit.verify()).ok, true);
});

test("the API says effect_committed_store_failed, with the effect and its outcome, when the store fails after it (control: 201)", async () => {
  const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
  const client = (await tokens.create("client")).token;
  const app = createApp({ runtime, tokens, version: "test" });
  const post = (file: string) =>
    app.request("/v1/runs?wait=true", {
      method: "POST",
      headers: { authorization: `Bearer ${client}`, "content-type": "application/json" },
      body: JSON.stringify({ agent, tool_calls: [{ name: "files.write_file", input: { path: `/w/${file}`, content: file } }, { name: "probe.echo", input: {} }] }),
    });
  const control = await post("api-control.txt");
  assert.equal(control.status, 201);
  assert.equal(((await control.json()) as { run: { end_reason: string } }).run.end_reason, "completed");

  const target = join(work, "api-committed.txt");
  store.fail({ kind: "full", match: (sql) => isWrite(sql) && existsSync(target) });
  const answer = await post("api-committed.txt");
  const body = (await answer.json()) as { error: { code: string; message: string; details: { run_id: string; effects: Array<{ tool: string; outcome: { status: string; output?: unknown; error?: { kind: string } } }> } } };
  assert.equal(answer.status, 500);
  assert.equal(body.error.code, "effect_committed_store_failed");
  assert.match(body.error.message, /do not submit it again/);
  assert.deepEqual(body.error.details.effects.map((e) => [e.tool, e.outcome.status, e.outcome.error?.kind, e.outcome.output]), [["files.write_file", "error", "audit-failed", undefined]]);
  assert.equal(await readFile(target, "utf8"), "api-committed.txt");
  store.clear();
  await runtime.driverTick();
  assert.equal((await runtime.records.get(body.error.details.run_id))?.status, "ended");
});

test("a store that keeps failing during a run that made no effect: run_store_failed, safe to submit again", async () => {
  let armed = false;
  store.before((sql) => /SELECT status, cancel_requested(, node)?(, end_reason)? FROM runs/.test(sql), async () => {
    armed = true;
  });
  store.fail({ kind: "full", match: (sql) => armed && isWrite(sql) });
  const { id, error } = await drive([{ name: "probe.echo", input: { nothing: true } }]);
  assert.equal((error as { code?: string }).code, "run_store_failed", String(error));
  assert.deepEqual((error as { details: { effects: unknown[] } }).details.effects, []);
  store.clear();
  await runtime.driverTick();
  assert.equal((await runtime.records.get(id!))?.status, "ended");
});
