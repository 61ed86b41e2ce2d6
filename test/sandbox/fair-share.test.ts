import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FairShare, type Holder } from "../../runtime/sandbox/fair-share.js";

/** Admission as a promise, whether it was granted at once or had to wait. */
const admit = (share: FairShare, holder: Holder): Promise<() => void> => Promise.resolve(share.admit(holder));

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
    const first = await admit(share, { run: "r1" });
    await admit(share, { run: "r1" });
    assert.equal(share.heldBy("r1"), 2);
    const third = admit(share, { run: "r1" });
    assert.equal(await settled(third), false);
    assert.equal(await settled(admit(share, { run: "r2" })), true, "another run is not held up");
    first();
    assert.equal(await settled(third), true);
    assert.equal(share.heldBy("r1"), 2);
  });

  test("calls_per_agent: the agent's 3rd call across runs is admitted (control), its 4th waits; another agent's is not held up", async () => {
    const share = new FairShare(limits);
    const held = [await admit(share, { run: "a1", agent: "A" }), await admit(share, { run: "a2", agent: "A" }), await admit(share, { run: "a3", agent: "A" })];
    const fourth = admit(share, { run: "a4", agent: "A" });
    assert.equal(await settled(fourth), false);
    assert.equal(await settled(admit(share, { run: "b1", agent: "B" })), true);
    held[1]!();
    assert.equal(await settled(fourth), true);
  });

  test("queued_calls_per_run: 2 waiting calls are kept (control), a 3rd is refused with too_many_calls", async () => {
    const share = new FairShare({ ...limits, perRun: 1 });
    const running = await admit(share, { run: "r" });
    const waiting = [admit(share, { run: "r" }), admit(share, { run: "r" })];
    await assert.rejects(admit(share, { run: "r" }), { code: "too_many_calls" });
    running();
    const next = await waiting[0]!;
    next();
    (await waiting[1]!)();
    assert.equal(share.heldBy("r"), 0);
  });

  test("a give-back wakes waiters in order, each counted before the next is looked at", async () => {
    const share = new FairShare({ ...limits, perRun: 1 });
    const running = await admit(share, { run: "r" });
    const order: number[] = [];
    const waiting = [1, 2].map((i) => admit(share, { run: "r" }).then((release) => (order.push(i), release)));
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
    const release = await admit(share, { run: "r" });
    await admit(share, { run: "r" });
    release();
    release();
    assert.equal(share.heldBy("r"), 1);
  });
});
