/**
 * Runs another node left (its lease ran out) are taken over by a runtime that serves (the
 * default), never by one a command opens for its one task (`adoptOrphans: false`, what every
 * in-process CLI command uses): that process exits when its command is done and would leave
 * the run half driven again.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { testRuntime } from "../helpers/runtime.js";

/** A run a dead node left: its lease ran out an hour ago, nothing records how far it got. */
async function orphan(runtime: Awaited<ReturnType<typeof testRuntime>>["runtime"], id: string): Promise<void> {
  await runtime.records.create({ id, traceId: "t", taskId: `task_${id}`, parentRunId: null, agent: "a", plugins: [], task: "x", taskGrants: null, createdAt: 1, node: "gone-node", leaseUntil: Date.now() - 3_600_000 });
}

for (const { name, adoptOrphans, taken } of [
  { name: "a command's runtime (adoptOrphans: false) leaves it to a server", adoptOrphans: false, taken: false },
  { name: "control: a serving runtime takes it over (here: ends it, nothing to continue from)", adoptOrphans: undefined, taken: true },
]) {
  test(`a run whose node died: ${name}`, async () => {
    const { runtime, dispose } = await testRuntime(adoptOrphans === undefined ? {} : { adoptOrphans });
    try {
      await orphan(runtime, "run_orphan");
      await runtime.driverTick();
      const record = (await runtime.records.get("run_orphan"))!;
      if (taken) {
        assert.equal(record.status, "ended");
        assert.match(record.result ?? "", /node_stopped/);
      } else {
        assert.equal(record.status, "active");
        assert.equal(record.node, "gone-node", "still the dead node's, for a server to take over");
      }
    } finally {
      await dispose();
    }
  });
}
