/**
 * A node that claims a schedule's due time and dies before recording its run: another node
 * starts the run once the claim is stale, and the firing still starts exactly one run, whoever
 * (the slow claimer, one or two retakers) gets there.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { firingRunId } from "../../runtime/schedules/index.js";
import { harness, MINUTE, T0 } from "./_fixtures.js";

const TIMEOUT = 30_000;

/** Claims the first due time of a cron schedule as `node` would, then "dies": no run is started. */
async function claimAndDie(h: Awaited<ReturnType<typeof harness>>, scheduleId: string, dueAt: number, node = "node-dead"): Promise<void> {
  const won = await h.scheduler.records.claim({ id: scheduleId, dueAt, next: dueAt + 10 * MINUTE, status: "active", firing: "claimed", node, at: dueAt });
  assert.equal(won, true);
}

const cases: { label: string; waitMs: number; runBefore: boolean; retaken: boolean }[] = [
  { label: "a fresh claim is left to its claimer (control)", waitMs: TIMEOUT - 1, runBefore: false, retaken: false },
  { label: "a stale claim without a run is taken over and its run started", waitMs: TIMEOUT, runBefore: false, retaken: true },
  { label: "a stale claim whose run did start is settled with that run, not started again", waitMs: TIMEOUT + 5 * 1000, runBefore: true, retaken: true },
];

for (const c of cases) {
  test(`claimed, then the node died: ${c.label}`, async () => {
    const h = await harness({ claimTimeoutMs: TIMEOUT });
    const s = await h.scheduler.create({ agent: "reporter", task: "t", cron: "*/10 * * * *" });
    const dueAt = T0 + 10 * MINUTE;
    await claimAndDie(h, s.id, dueAt);
    const runId = firingRunId(s.id, dueAt);
    if (c.runBefore) h.submitted.push({ runId, agent: "reporter", task: "t", grants: {} });
    h.clock.t = dueAt + c.waitMs;
    const peer = await h.peer("node-b");
    await peer.tick();
    const [firing] = await h.scheduler.firings(s.id);
    assert.equal(h.submitted.filter((input) => input.runId === runId).length, c.retaken || c.runBefore ? 1 : 0);
    assert.equal(firing?.status, c.retaken ? "started" : "claimed");
    assert.equal(firing?.runId, c.retaken ? runId : null);
    assert.equal(firing?.node, c.retaken ? "node-b" : "node-dead");
  });
}

test("two nodes retaking the same stale claim at once start one run", async () => {
  const h = await harness({ claimTimeoutMs: TIMEOUT });
  const s = await h.scheduler.create({ agent: "reporter", task: "t", cron: "*/10 * * * *" });
  const dueAt = T0 + 10 * MINUTE;
  await claimAndDie(h, s.id, dueAt);
  h.clock.t = dueAt + TIMEOUT;
  const [b, c] = [await h.peer("node-b"), await h.peer("node-c")];
  await Promise.all([b.tick(), c.tick(), b.tick()]);
  assert.deepEqual(h.submitted.map((input) => input.runId), [firingRunId(s.id, dueAt)]);
  assert.equal((await h.scheduler.firings(s.id))[0]?.status, "started");
});

test("firing run ids differ per schedule and due time, and look like run ids", () => {
  const ids = new Set([firingRunId("sch_a", 1), firingRunId("sch_a", 2), firingRunId("sch_b", 1)]);
  assert.equal(ids.size, 3);
  for (const id of ids) assert.match(id, /^run_[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(firingRunId("sch_a", 1), firingRunId("sch_a", 1));
});
