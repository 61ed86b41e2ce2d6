import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import { Runtime } from "../../runtime/index.js";
import { openStore } from "../../runtime/store/index.js";
import { FaultyStore } from "../helpers/faulty-store.js";
import { defineTestAgent, FILES_PLUGIN, PROBE_PLUGIN, tempDataDir } from "../helpers/runtime.js";

/**
 * A cancel is never lost: two runtimes (nodes A and B) share one store file, and a cancel
 * recorded on one is honoured by the other before its next ToolCall, its next effect, and its
 * replay after an approval; a restart does not replay a cancelled run's call either.
 */
let dataDir: string;
let work: string;
let a: Runtime;
let b: Runtime;
let bStore: FaultyStore;

const open = (store?: FaultyStore) =>
  Runtime.create({ dataDir, agentsDir: join(dataDir, "agents"), pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], sandbox: { poolSize: 0 }, ...(store ? { store } : {}) });

async function agents(runtime: Runtime): Promise<void> {
  const mounts = [{ guest: "/w", host: work, mode: "rw" as const }];
  await defineTestAgent(runtime, "direct", { plugins: ["probe", "files"], mounts, lowerToSafe: ["files.write_file"], extraGrants: { kv: { namespace: "cancel", quota_bytes: 1024 } } });
  await defineTestAgent(runtime, "guarded", { plugins: ["probe", "files"], mounts });
}

before(async () => {
  dataDir = await tempDataDir("clawhive-cancel-");
  work = join(dataDir, "work");
  await mkdir(work);
  await mkdir(join(dataDir, "agents"));
  a = await open();
  bStore = new FaultyStore(await openStore({ url: `file:${join(dataDir, "clawhive.db")}` }));
  b = await open(bStore);
  await agents(a);
  await agents(b);
});
afterEach(() => bStore.clear());
after(async () => {
  await b.close();
  await a.close();
  await rm(dataDir, { recursive: true, force: true });
});

const write = (name: string) => ({ path: `/w/${name}`, content: name });

test("a cancel recorded on node A stops node B's run before its next ToolCall (control: an uncancelled run writes)", async () => {
  const control = await b.startRun({ agent: "direct" });
  assert.equal((await control.callTool("files.write_file", write("control-1.txt"))).status, "ok");
  await control.end();
  assert.equal(existsSync(join(work, "control-1.txt")), true);

  const run = await b.startRun({ agent: "direct" });
  assert.equal((await run.callTool("probe.echo", { first: true })).status, "ok");
  const asked = await a.cancelRun(run.id);
  assert.equal(asked.cancelRequested, true, "A recorded the cancel; B holds the run");
  // The store knows; B's memory may not yet — or may, when B's driver tick (every second) ran
  // while A was cancelling on a busy machine. Either way the next ToolCall is refused; the
  // tests below take each order on purpose.
  await assert.rejects(run.callTool("files.write_file", write("after-cancel-1.txt")), { code: "run_cancelled" });
  assert.equal(existsSync(join(work, "after-cancel-1.txt")), false);
  const record = await a.records.get(run.id);
  assert.equal(record?.status, "ended");
  assert.equal(record?.endReason, "cancelled");
});

/**
 * Whoever notices a cancel first, B's next ToolCall is refused as cancelled and writes nothing:
 * its own check reading the store, or B's tick (which ends the run at once) running between
 * the cancel and the call.
 */
for (const noticed of [
  { by: "B's ToolCall check", before: async () => undefined },
  { by: "B's driver tick, run between the cancel and the call", before: () => b.driverTick() },
]) {
  test(`a cancel recorded on node A, noticed first by ${noticed.by}: B's next ToolCall is refused as cancelled, nothing is written`, async () => {
    const run = await b.startRun({ agent: "direct" });
    assert.equal((await run.callTool("probe.echo", { first: true })).status, "ok");
    await a.cancelRun(run.id);
    await noticed.before();
    await assert.rejects(run.callTool("files.write_file", write(`noticed-${noticed.by.length}.txt`)), { code: "run_cancelled" });
    assert.equal(existsSync(join(work, `noticed-${noticed.by.length}.txt`)), false);
    await until(async () => (await a.records.get(run.id))?.status === "ended");
    assert.equal((await a.records.get(run.id))?.endReason, "cancelled");
  });
}

/** Effects of each kind, and how to tell whether one happened. */
const EFFECTS: Array<{ what: string; call: (key: string) => { name: string; input: unknown }; happened: (key: string) => Promise<boolean> }> = [
  { what: "an fs.write", call: (key) => ({ name: "files.write_file", input: write(`${key}.txt`) }), happened: async (key) => existsSync(join(work, `${key}.txt`)) },
  {
    what: "a kv.set (kv is Safe as a capability, yet a write)",
    call: (key) => ({ name: "probe.kvset", input: { key, value: "v" } }),
    happened: async (key) => {
      const run = await a.startRun({ agent: "direct" });
      const got = await run.callTool("probe.kvget", { key });
      await run.end();
      return got.status === "ok" && JSON.stringify(got.output).includes('"v"');
    },
  },
];

for (const effect of EFFECTS) {
  for (const cancel of [true, false]) {
    test(`${cancel ? "a cancel recorded on node A between B's ToolCall start and" : "control: no cancel before"} ${effect.what}: ${cancel ? "refused at the host-call gate" : "it happens"}`, async () => {
      const key = `gate-${EFFECTS.indexOf(effect)}-${cancel}`;
      const run = await b.startRun({ agent: "direct" });
      let checks = 0;
      // The store is asked at the ToolCall's start, then (the fence) in the effect's intent's own
      // commit: the cancel lands between the two, right before that commit.
      bStore.before(
        (sql) => /INSERT INTO run_fences/.test(sql) && ++checks === 1,
        async () => {
          if (cancel) await a.records.requestCancel(run.id);
        },
      );
      const { name, input } = effect.call(key);
      const outcome = await run.callTool(name, input).catch((error: { code?: string }) => ({ status: "threw", code: error.code }));
      assert.ok(checks >= 1, "the gate asked the store");
      if (!cancel) {
        assert.equal(outcome.status, "ok", JSON.stringify(outcome));
        assert.equal(await effect.happened(key), true);
        await run.end();
        return;
      }
      assert.notEqual(outcome.status, "ok", JSON.stringify(outcome));
      await until(async () => (await a.records.get(run.id))?.status === "ended");
      assert.equal((await a.records.get(run.id))?.endReason, "cancelled");
      assert.equal(await effect.happened(key), false, "the effect was refused");
      const { records } = await b.audit.query({ runId: run.id, kind: "host_call", limit: 50 });
      assert.ok(
        records.some((r) => r.decision === "deny" && r.denial?.reason === "run-cancelled"),
        `the refusal is audited: ${JSON.stringify(records.map((r) => [r.decision, r.denial?.reason]))}`,
      );
    });
  }
}

test("a run cancelled while it waits for approval: its approval is withdrawn, approving it is refused, the effect never happens", async () => {
  const { tokens, app } = await api(a);
  const { run, settled } = await b.submitRun({ agent: "guarded", toolCalls: [{ name: "files.write_file", input: write("waited.txt") }] });
  await settled;
  assert.equal(run.status, "awaiting_approval");
  const approvalId = run.pending!.approvalId;
  await a.cancelRun(run.id);
  assert.equal((await a.approvals.get(approvalId))?.status, "withdrawn");
  await assert.rejects(a.approvals.decide(approvalId, { decision: "approve", by: "operator" }), { code: "approval_withdrawn" });
  const answer = await app.request(`/v1/approvals/${approvalId}`, { method: "POST", headers: { authorization: `Bearer ${tokens.approver}`, "content-type": "application/json" }, body: JSON.stringify({ decision: "approve" }) });
  assert.equal(answer.status, 409);
  assert.equal(((await answer.json()) as { error: { code: string } }).error.code, "approval_withdrawn");
  // B, which holds the run, ends it at its next tick.
  await b.driverTick();
  await a.driverTick();
  const record = await a.records.get(run.id);
  assert.equal(record?.status, "ended");
  assert.equal(record?.endReason, "cancelled");
  assert.equal(existsSync(join(work, "waited.txt")), false);
});

test("control: a run whose approval is approved on A is continued by B's tick and writes", async () => {
  const { run, settled } = await b.submitRun({ agent: "guarded", toolCalls: [{ name: "files.write_file", input: write("approved.txt") }] });
  await settled;
  await a.approvals.decide(run.pending!.approvalId, { decision: "approve", by: "operator" });
  await b.driverTick();
  await until(async () => (await a.records.get(run.id))?.status === "ended");
  assert.equal(await readFile(join(work, "approved.txt"), "utf8"), "approved.txt");
});

test("an approval given before the cancel is not spent by a replay: B's tick sees the cancel first", async () => {
  const { run, settled } = await b.submitRun({ agent: "guarded", toolCalls: [{ name: "files.write_file", input: write("raced.txt") }] });
  await settled;
  const approvalId = run.pending!.approvalId;
  await a.approvals.decide(approvalId, { decision: "approve", by: "operator" });
  // Only the cancel's record: as if A died between recording it and withdrawing anything.
  await a.records.requestCancel(run.id);
  await b.continueRun(run.id);
  assert.equal(existsSync(join(work, "raced.txt")), false);
  const record = await a.records.get(run.id);
  assert.equal(record?.endReason, "cancelled");
  assert.equal((await a.approvals.get(approvalId))?.status, "withdrawn", "the approval it never used is withdrawn");
});

test("after a restart, a run whose cancel was recorded is not replayed (control: one not cancelled is)", async () => {
  const own = await tempDataDir("clawhive-cancel-restart-");
  try {
    const ownAgents = join(own, "agents");
    await mkdir(ownAgents);
    const openOwn = () => Runtime.create({ dataDir: own, agentsDir: ownAgents, pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], sandbox: { poolSize: 0 } });
    const first = await openOwn();
    await agents(first);
    const ids: Record<string, string> = {};
    for (const name of ["restart-cancelled.txt", "restart-control.txt"]) {
      const { run, settled } = await first.submitRun({ agent: "guarded", toolCalls: [{ name: "files.write_file", input: write(name) }] });
      await settled;
      await first.approvals.decide(run.pending!.approvalId, { decision: "approve", by: "operator" });
      ids[name] = run.id;
    }
    await first.records.requestCancel(ids["restart-cancelled.txt"]!);
    await first.close();

    const second = await openOwn();
    try {
      await agents(second);
      await second.driverTick();
      await until(async () => (await second.records.get(ids["restart-control.txt"]!))?.status === "ended");
      await until(async () => (await second.records.get(ids["restart-cancelled.txt"]!))?.status === "ended");
      assert.equal(existsSync(join(work, "restart-cancelled.txt")), false);
      assert.equal((await second.records.get(ids["restart-cancelled.txt"]!))?.endReason, "cancelled");
      assert.equal(await readFile(join(work, "restart-control.txt"), "utf8"), "restart-control.txt");
    } finally {
      await second.close();
    }
  } finally {
    await rm(own, { recursive: true, force: true });
  }
});

async function api(runtime: Runtime): Promise<{ app: ReturnType<typeof createApp>; tokens: { approver: string } }> {
  const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
  const approver = (await tokens.create("approver")).token;
  return { app: createApp({ runtime, tokens, version: "test" }), tokens: { approver } };
}

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
