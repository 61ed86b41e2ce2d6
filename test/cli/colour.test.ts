import assert from "node:assert/strict";
import { test } from "node:test";
import { colourOn, painter } from "../../runtime/cli/colour.js";
import { colourLine } from "../../runtime/cli/run-render.js";

test("colour is on for a terminal only, FORCE_COLOR forces it, NO_COLOR always wins, TERM=dumb turns it off", () => {
  const rows: Array<[boolean, NodeJS.ProcessEnv, boolean]> = [
    [true, {}, true],
    [false, {}, false],
    [false, { FORCE_COLOR: "1" }, true],
    [false, { FORCE_COLOR: "0" }, false],
    [true, { NO_COLOR: "1" }, false],
    [true, { NO_COLOR: "" }, true],
    [true, { NO_COLOR: "1", FORCE_COLOR: "1" }, false],
    [true, { TERM: "dumb" }, false],
  ];
  for (const [isTTY, env, on] of rows) assert.equal(colourOn({ isTTY }, env), on, JSON.stringify({ isTTY, env }));
});

test("event lines: the outcome word is painted (a denial red), the rest is left as it was", () => {
  const on = painter({ isTTY: true }, {});
  const red = (t: string) => `\u001b[31m${t}\u001b[39m`;
  assert.equal(colourLine("error   files.read_file: io: gone", on), `${red("error")}   files.read_file: io: gone`);
  assert.equal(colourLine("host    fs.write-file (fs.write) denied: not_granted: /etc", on), `${red("host")}    fs.write-file (fs.write) ${red("denied")}: not_granted: /etc`);
  assert.match(colourLine("ok      files.read_file (3 ms)", on), /^\u001b\[32mok\u001b\[39m {6}files/);
  // Control: off, every line comes back byte for byte.
  const off = painter({ isTTY: false }, {});
  for (const line of ["error   x: y: z", "host    a (b) denied: c: d", "ok      t", "ended   completed"]) assert.equal(colourLine(line, off), line);
});
