/** HeadTailCapture: exact when everything fits, head and tail around a marker when not. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { HeadTailCapture } from "../../../host-proxies/shell/capture.js";

const lines = (from: number, to: number): string => {
  let s = "";
  for (let i = from; i <= to; i++) s += `${i}\n`;
  return s;
};

function capture(text: string, chunk: number, options = { headBytes: 16, tailBytes: 16 }) {
  const c = new HeadTailCapture(options);
  const data = Buffer.from(text);
  for (let i = 0; i < data.length; i += chunk) c.push(data.subarray(i, i + chunk));
  return c.finish();
}

test("capture: output that fits is returned whole, in any chunking", () => {
  for (const chunk of [1, 3, 7, 32, 1000]) {
    const text = "a\nbb\nccc\nþ€😀\n" + "x".repeat(10);
    const out = capture(text, chunk, { headBytes: 20, tailBytes: 20 });
    assert.equal(out.text, text);
    assert.equal(out.bytes, BigInt(Buffer.byteLength(text)));
    assert.equal(out.linesDropped, 0n);
  }
});

test("capture: exactly head + tail bytes is not a drop", () => {
  const out = capture("x".repeat(32), 5);
  assert.equal(out.text, "x".repeat(32));
  assert.equal(out.linesDropped, 0n);
});

test("capture: the middle is dropped at line boundaries and counted", () => {
  for (const chunk of [1, 4, 9, 64, 4096]) {
    const text = lines(1, 1000);
    const out = capture(text, chunk);
    const [head, tail] = out.text.split(/\[… \d+ lines \(\d+ bytes\) dropped …\]\n/);
    const shown = [...(head ?? "").split("\n").filter(Boolean), ...(tail ?? "").split("\n").filter(Boolean)].map(Number);
    assert.equal(shown[0], 1, "head starts at the first line");
    assert.equal(shown.at(-1), 1000, "tail ends at the last line");
    assert.equal(shown.length + Number(out.linesDropped), 1000, `shown + dropped = all lines (chunk ${chunk})`);
    assert.equal(out.bytes, BigInt(text.length));
    const dropped = Number(/\((\d+) bytes\)/.exec(out.text)?.[1]);
    assert.equal(dropped, text.length - (head ?? "").length - (tail ?? "").length);
  }
});

test("capture: one huge line is cut, not lost from the byte count", () => {
  const out = capture("y".repeat(10_000), 333);
  assert.equal(out.bytes, 10_000n);
  assert.equal(out.linesDropped, 0n);
  assert.match(out.text, /^y{16}\n\[… 0 lines \(9968 bytes\) dropped …\]\ny{16}$/);
});

test("capture: a flood costs the two buffers, whatever its size", () => {
  const c = new HeadTailCapture({ headBytes: 1024, tailBytes: 1024 });
  const block = Buffer.from("y\n".repeat(32 * 1024));
  for (let i = 0; i < 1600; i++) c.push(block); // 100 MiB
  const out = c.finish();
  assert.equal(out.bytes, 100n * 1024n * 1024n);
  assert.equal(out.linesDropped, 50n * 1024n * 1024n - 1024n, "head and tail both hold 512 whole lines");
  assert.ok(out.text.length < 2100);
});
