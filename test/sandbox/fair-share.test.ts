import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FairShare } from "../../runtime/sandbox/fair-share.js";

const settled = async (promise: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void promise.then(() => (done = true), () => (done = true));
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe("FairShare: each cap bites one over it, and lets the call just under it through", () => {
  const limits = { perRun: 2, perAgent: 3, queuedPerRun: 2 };

  test("calls_per_run: the run's 2nd call is admitted (control), its 3rd waits until one is given back", async () => {
    const share = new FairShare(limits);
    const first = await share.admit({ run: "r1" });
    await share.admit({ run: "r1" });
    assert.equal(share.heldBy("r1"), 2);
    const third = share.admit({ run: "r1" });
    assert.equal(await settled(third), false);
    assert.equal(await settled(share.admit({ run: "r2" })), true, "another run is not held up");
    first();
    assert.equal(await settled(third), true);
    assert.equal(share.heldBy("r1"), 2);
  });

  test("calls_per_agent: the agent's 3rd call across runs is admitted (control), its 4th waits; another agent's is not held up", async () => {
    const share = new FairShare(limits);
    const held = [await share.admit({ run: "a1", agent: "A" }), await share.admit({ run: "a2", agent: "A" }), await share.admit({ run: "a3", agent: "A" })];
    const fourth = share.admit({ run: "a4", agent: "A" });
    assert.equal(await settled(fourth), false);
    assert.equal(await settled(share.admit({ run: "b1", agent: "B" })), true);
    held[1]!();
    assert.equal(await settled(fourth), true);
  });

  test("queued_calls_per_run: 2 waiting calls are kept (control), a 3rd is refused with too_many_calls", async () => {
    const share = new FairShare({ ...limits, perRun: 1 });
    const running = await share.admit({ run: "r" });
    const waiting = [share.admit({ run: "r" }), share.admit({ run: "r" })];
    await assert.rejects(share.admit({ run: "r" }), { code: "too_many_calls" });
    running();
    const next = await waiting[0]!;
    next();
    (await waiting[1]!)();
    assert.equal(share.heldBy("r"), 0);
  });

  test("a give-back wakes waiters in order, each counted before the next is looked at", async () => {
    const share = new FairShare({ ...limits, perRun: 1 });
    const running = await share.admit({ run: "r" });
    const order: number[] = [];
    const waiting = [1, 2].map((i) => share.admit({ run: "r" }).then((release) => (order.push(i), release)));
    running();
    const firstWoken = await waiting[0]!;
    assert.deepEqual(order, [1]);
    assert.equal(share.heldBy("r"), 1, "the second waiter did not slip in beside the first");
    firstWoken();
    (await waiting[1]!)();
    assert.deepEqual(order, [1, 2]);
  });

  test("giving back twice counts once", async () => {
    const share = new FairShare(limits);
    const release = await share.admit({ run: "r" });
    await share.admit({ run: "r" });
    release();
    release();
    assert.equal(share.heldBy("r"), 1);
  });
});
