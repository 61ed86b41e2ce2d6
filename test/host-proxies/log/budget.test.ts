import assert from "node:assert/strict";
import { test } from "node:test";
import { createLineBudget } from "../../../host-proxies/log/index.js";

test("per_minute: the bucket starts full, one over it is dropped, and it refills at the rate", () => {
  let now = 0;
  const budget = createLineBudget({ perMinute: 3, now: () => now });
  assert.deepEqual([budget.take(), budget.take(), budget.take()], [true, true, true], "control: up to the limit");
  assert.equal(budget.take(), false);
  assert.equal(budget.dropped, 1);
  now += 19_000; // less than a line's worth (20 s at 3 a minute)
  assert.equal(budget.take(), false);
  now += 1_000;
  assert.equal(budget.take(), true);
  assert.equal(budget.dropped, 2);
});

test("maxLines: a run's total holds however slowly it writes", () => {
  let now = 0;
  const budget = createLineBudget({ perMinute: 60, maxLines: 2, now: () => now });
  assert.equal(budget.take(), true);
  now += 60_000;
  assert.equal(budget.take(), true);
  now += 60_000;
  assert.equal(budget.take(), false);
});

test("a budget that is not a positive number is refused", () => {
  for (const perMinute of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) assert.throws(() => createLineBudget({ perMinute }), RangeError);
});
