import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { round, value } from "../../bench/metrics.js";

describe("bench figures' rounding", () => {
  const cases: Array<[number, number]> = [
    [12188.4, 12188],
    [100, 100],
    [46.714, 46.71],
    [1.2749, 1.27],
    [1, 1],
    [0.0038327, 0.00383],
    [0.61234, 0.612],
    [-0.0012345, -0.00123],
    [0, 0],
  ];
  for (const [raw, shown] of cases) {
    it(`${raw} is shown as ${shown}`, () => assert.equal(round(raw), shown));
  }

  it("a ratio far below 1 keeps its size instead of printing 0", () => {
    assert.deepEqual(value(46.71 / 12188, "ratio"), { value: 0.00383, unit: "ratio" });
  });
});
