/** The README test's reading of Markdown and its comparison: what passes, and the drift that must not. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { consoleBlocks, IdBindings, matches, normalise } from "./readme-blocks.js";

const MARKDOWN = [
  "<!-- readme-test: skip needs a model key -->",
  "```console",
  "$ npx clawhive run default \"hi\"",
  "```",
  "",
  "<!-- readme-test: setup",
  "printf 'x' > a.txt",
  "-->",
  "```console",
  "$ npx clawhive memory write a \"# A",
  "line two\"",
  "remembered …",
  "$ true",
  "```",
  "```yaml",
  "$ not: a command",
  "```",
  "```console",
  "$ echo one \\",
  "    two",
  "one two",
  "```",
].join("\n");

test("console blocks: directives, commands continued over lines, other blocks ignored", () => {
  const blocks = consoleBlocks(MARKDOWN);
  assert.equal(blocks.length, 3);
  assert.equal(blocks[0]!.skip, "needs a model key");
  assert.equal(blocks[1]!.setup?.trim(), "printf 'x' > a.txt");
  assert.equal(blocks[1]!.skip, undefined);
  assert.deepEqual(blocks[1]!.steps, [
    { command: 'npx clawhive memory write a "# A\nline two"', expected: ["remembered …"] },
    { command: "true", expected: [] },
  ]);
  assert.deepEqual(blocks[2]!.steps, [{ command: "echo one \\\n    two", expected: ["one two"] }]);
  assert.equal(blocks[2]!.setup, undefined, "a directive belongs to the block right below it");
});

test("matching: what may differ is normalised, drift is not", () => {
  const n = (lines: string[]) => lines.map(normalise);
  const cases: Array<[string[], string[], boolean]> = [
    [["ok: 5 records, head 5:a8907af83314411827115d2d"], ["ok: 5 records, head 5:0000000000000000000000000"], true],
    [["ok: 5 records, head 5:a8907af83314411827115d2d"], ["ok: 6 records, head 6:a8907af83314411827115d2d"], false],
    [["approved apr_2b8b99ee-… at 2026-11-22T19:11:41.152Z (149 ms)"], ["approved apr_516fb8b1-81b0-4fc7-b14d-892271a50b3d at 2026-11-25T23:45:07.898Z (12 ms)"], true],
    [["approved apr_2b8b99ee-…"], ["denied apr_516fb8b1-81b0-4fc7-b14d-892271a50b3d"], false],
    [["a", "…", "z"], ["a", "b", "c", "z"], true],
    [["a", "…", "z"], ["a", "b"], false],
    [["files.read_file safe Read a text file. …"], ["files.read_file    safe   Read a text file. Returns its text."], true],
    [["files.read_file safe Read a text file. …"], ["files.read_file guarded Read a text file. Returns its text."], false],
    [[], ["unexpected output"], false],
    [["line"], ["line", "one more line"], false],
  ];
  for (const [expected, actual, ok] of cases) assert.equal(matches(n(expected), n(actual)), ok, JSON.stringify([expected, actual]));
});

test("ids: a README id stands for the latest printed id of its kind not yet taken", () => {
  const ids = new IdBindings();
  ids.saw("waiting for approval apr_11111111-aaaa-bbbb-cccc-000000000001 of run run_22222222-aaaa-bbbb-cccc-000000000002");
  assert.equal(ids.translate("approve apr_2b8b99ee-…"), "approve apr_11111111-aaaa-bbbb-cccc-000000000001");
  ids.saw("waiting for approval apr_33333333-aaaa-bbbb-cccc-000000000003");
  assert.equal(ids.translate("approve apr_2b8b99ee-e7be-4eaf-8c26-076f73b4cda9"), "approve apr_11111111-aaaa-bbbb-cccc-000000000001", "bound once, kept");
  assert.equal(ids.translate("approve apr_a84c7629-…"), "approve apr_33333333-aaaa-bbbb-cccc-000000000003");
  assert.equal(ids.translate("resume run_bab82348-…"), "resume run_22222222-aaaa-bbbb-cccc-000000000002");
});
