import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ftsQuery } from "../../runtime/memory/fts-query.js";

describe("ftsQuery", () => {
  const cases: [string, string | undefined][] = [
    ["retry timeout", '"retry" OR "timeout"'],
    ['say "hi" NEAR(a b)', '"say" OR "hi" OR "near" OR "b"'],
    ["heading:secret", '"heading" OR "secret"'],
    ["pre* ^start -x +y", '"pre" OR "start" OR "x" OR "y"'],
    ["the and of", undefined],
    ["", undefined],
    ["Café café", '"café"'],
  ];
  for (const [input, want] of cases) it(JSON.stringify(input), () => assert.equal(ftsQuery(input), want));
});
