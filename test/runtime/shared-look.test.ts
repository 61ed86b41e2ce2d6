/**
 * SharedLook: the callers of a moment share one look at the agents or plugins, yet nobody is
 * answered by a look that began before they asked (a change made just before the call is seen).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SharedLook } from "../../runtime/runtime/shared-look.js";

/** A look whose runs the test ends by hand; `version` is what each run saw when it began. */
function manualLook(): { look: SharedLook; began: number[]; finish: (error?: Error) => void; version: { now: number } } {
  const version = { now: 0 };
  const began: number[] = [];
  const pending: Array<(error?: Error) => void> = [];
  const look = new SharedLook(
    () =>
      new Promise<void>((resolve, reject) => {
        began.push(version.now);
        pending.push((error) => (error === undefined ? resolve() : reject(error)));
      }),
  );
  return { look, began, version, finish: (error) => pending.shift()!(error) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("SharedLook", () => {
  test("a burst of callers costs two looks: the one the first starts, and the next for the rest", async () => {
    const m = manualLook();
    const calls = Array.from({ length: 32 }, () => m.look.look());
    assert.equal(m.began.length, 1);
    m.finish();
    await tick();
    assert.equal(m.began.length, 2);
    m.finish();
    await Promise.all(calls);
    assert.equal(m.began.length, 2);
    // Control: a caller once nothing runs starts a look of its own at once.
    const alone = m.look.look();
    assert.equal(m.began.length, 3);
    m.finish();
    await alone;
  });

  test("a caller during a look waits for the next one, which later callers join", async () => {
    const m = manualLook();
    const first = m.look.look();
    m.version.now = 1; // a change after the first look began
    let laterDone = false;
    const later = m.look.look().then(() => (laterDone = true));
    const latest = m.look.look();
    m.finish();
    await first;
    await tick();
    assert.equal(laterDone, false, "the first look began before the change: it must not answer the later caller");
    assert.deepEqual(m.began, [0, 1], "the second look began after the change");
    m.finish();
    await Promise.all([later, latest]);
    assert.equal(m.began.length, 2, "two looks for the burst, not three");
  });

  test("a failed look fails its callers; the next caller starts a fresh one", async () => {
    const m = manualLook();
    const failing = m.look.look();
    const queued = m.look.look();
    m.finish(new Error("store_busy"));
    await assert.rejects(failing, /store_busy/);
    await tick();
    assert.equal(m.began.length, 2, "the queued caller got its own look");
    m.finish();
    await queued;
    const control = m.look.look();
    assert.equal(m.began.length, 3);
    m.finish();
    await control;
  });
});
