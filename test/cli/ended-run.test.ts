import assert from "node:assert/strict";
import { test } from "node:test";
import { endedRun } from "../../runtime/cli/ended-run.js";
import type { RunSession } from "../../runtime/cli/run-session.js";
import type { RunView } from "../../runtime/cli/views.js";

/** A session whose run record reads `statuses` in turn (the last one from then on). */
function session(statuses: RunView["status"][]): { session: RunSession; reads: () => number } {
  let reads = 0;
  const run = async (id: string) => ({ id, status: statuses[Math.min(reads++, statuses.length - 1)] }) as unknown as RunView;
  return { session: { run } as unknown as RunSession, reads: () => reads };
}

test("a record that lags the run-ended event is read again until it says ended", async () => {
  const s = session(["active", "active", "ended"]);
  assert.equal((await endedRun(s.session, "run_1")).status, "ended");
  assert.equal(s.reads(), 3);
});

test("control: an ended run, or one waiting for an approval, is read once", async () => {
  for (const status of ["ended", "awaiting_approval"] as const) {
    const s = session([status]);
    assert.equal((await endedRun(s.session, "run_1")).status, status);
    assert.equal(s.reads(), 1, status);
  }
});
