import assert from "node:assert/strict";
import { test } from "node:test";
import { progressPrinter } from "../../runtime/cli/progress.js";

function stream(isTTY: boolean): { isTTY: boolean; text: string; write(t: string): void } {
  return { isTTY, text: "", write(t: string) { this.text += t; } };
}

test("at a terminal the time since the last progress line ticks beneath it; stop clears it and later lines are plain", (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  let clock = 0;
  const out = stream(true);
  const progress = progressPrinter(out, { now: () => clock });
  progress("plugin 1/7 calendar: installing (built from source unless the build cache has it)");
  for (let i = 0; i < 3; i++) {
    clock += 1000;
    t.mock.timers.tick(1000);
  }
  assert.match(out.text, /^plugin 1\/7 calendar: [^\n]*\n(\r\u001b\[2K)?  … 1 s\r\u001b\[2K  … 2 s\r\u001b\[2K  … 3 s$/);
  progress("plugin 2/7 files: building");
  assert.match(out.text, /… 3 s\r\u001b\[2Kplugin 2\/7 files: building\n$/, "the status line is cleared before the next line");
  progress.stop();
  const before = out.text;
  t.mock.timers.tick(5000);
  progress("run started");
  assert.equal(out.text, `${before}run started\n`, "no ticking after stop");
});

test("to a pipe only the lines are written, no control codes", (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  const out = stream(false);
  const progress = progressPrinter(out);
  progress("plugin 1/2 files: building");
  t.mock.timers.tick(10_000);
  progress("plugin 2/2 web: building");
  progress.stop();
  assert.equal(out.text, "plugin 1/2 files: building\nplugin 2/2 web: building\n");
});
