/**
 * The streamed answer's rendering: Markdown blocks found as they complete, text passed through
 * as it comes when not rendering, and at a terminal the raw text of a block replaced in place by
 * its rendering (checked on a small terminal model: cursor moves, clears, line wrapping).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { AnswerStream, completeBlocks } from "../../runtime/cli/answer-stream.js";

test("completeBlocks: which blocks are complete, and what is left", () => {
  const cases: Array<[string, string[], string]> = [
    ["no newline yet", [], "no newline yet"],
    ["one line\n", [], "one line\n"],
    ["para one\nstill one\n\nnext", ["para one\nstill one\n\n"], "next"],
    ["# Title\nbody", ["# Title\n"], "body"],
    ["```js\nconst a = 1;\n\nconst b = 2;\n", [], "```js\nconst a = 1;\n\nconst b = 2;\n"],
    ["```js\nconst a = 1;\n\n```\nafter", ["```js\nconst a = 1;\n\n```\n"], "after"],
    ["~~~\n```\nnot a close\n~~~\n", ["~~~\n```\nnot a close\n~~~\n"], ""],
    ["| a | b |\n|---|---|\n| 1 | 2 |\n", [], "| a | b |\n|---|---|\n| 1 | 2 |\n"],
    ["| a | b |\n|---|---|\n| 1 | 2 |\n\n", ["| a | b |\n|---|---|\n| 1 | 2 |\n\n"], ""],
    ["\n\n\nlead", [], "\n\n\nlead"],
  ];
  for (const [text, blocks, rest] of cases) assert.deepEqual(completeBlocks(text), { blocks, rest }, JSON.stringify(text));
});

test("without rendering: every delta is written as it arrives, controls made inert, the answer ends its line", () => {
  const written: string[] = [];
  const stream = new AnswerStream({ write: (t) => written.push(t) });
  stream.write("step_1", "Hel");
  assert.deepEqual(written, ["Hel"], "a delta is shown at once, before the line is complete");
  stream.write("step_1", "lo \u001b[2Jthere");
  stream.end();
  assert.equal(written.join(""), "Hello \\u{1b}[2Jthere\n");
  assert.ok(stream.shown("step_1"));
  assert.ok(!stream.shown("step_2"));
});

/** A terminal of `columns` columns: enough of VT100 for what AnswerStream writes. */
function terminal(columns: number) {
  const rows: string[] = [""];
  let row = 0;
  let col = 0;
  const put = (c: string) => {
    if (col === columns) {
      row++;
      col = 0;
    }
    rows[row] ??= "";
    rows[row] = rows[row]!.padEnd(col).slice(0, col) + c + rows[row]!.slice(col + 1);
    col++;
  };
  return {
    columns,
    write(text: string) {
      for (let i = 0; i < text.length; i++) {
        const c = text[i]!;
        if (c === "\u001b") {
          const m = /^\u001b\[(\d*)([AJ])/.exec(text.slice(i))!;
          assert.ok(m, `an escape the model terminal knows: ${JSON.stringify(text.slice(i, i + 6))}`);
          if (m[2] === "A") row -= Number(m[1] || "1");
          else rows.splice(row + 1), (rows[row] = rows[row]!.slice(0, col));
          assert.ok(row >= 0, "the cursor never moves above the answer");
          i += m[0].length - 1;
        } else if (c === "\r") col = 0;
        else if (c === "\n") {
          row++;
          col = 0;
          rows[row] ??= "";
        } else put(c);
      }
    },
    screen: () => rows.join("\n"),
  };
}

test("at a terminal: the raw text of a block is replaced by its rendering, also when it wrapped over several rows", () => {
  for (const columns of [80, 12, 7]) {
    const screen = terminal(columns);
    const stream = new AnswerStream(screen, { render: (md) => `<${md.trim().replace(/\n/g, "|")}>\n` });
    const text = "# Head\n\nA paragraph that is long enough to wrap.\n\n```\ncode\n```\n- last item";
    // Delivered in small pieces, as a model streams.
    for (let i = 0; i < text.length; i += 5) stream.write("step_1", text.slice(i, i + 5));
    assert.match(screen.screen(), /- last/, "the unfinished block is shown raw meanwhile");
    stream.end();
    const shown = screen.screen().split("\n").map((line) => line.trimEnd()).join("\n");
    assert.equal(shown, "<# Head>\n\n<A paragraph that is long enough to wrap.>\n\n<```|code|```>\n\n<- last item>\n".replace(/[^\n]+/g, (line) => wrap(line, columns)), `${columns} columns`);
  }
});

function wrap(line: string, columns: number): string {
  const parts: string[] = [];
  for (let i = 0; i < line.length; i += columns) parts.push(line.slice(i, i + columns));
  return parts.map((part) => part.trimEnd()).join("\n");
}
