import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { didYouMean, editDistance, suggest } from "../../runtime/text/suggest.js";
import { parseCommandArgs } from "../../runtime/cli/args.js";
import { resolveToolName } from "../../runtime/runs/agent-tools.js";
import type { ToolInfo } from "../../runtime/runs/types.js";
import { BIN } from "./fixtures.js";

const COMMANDS = ["serve", "run", "runs", "resume", "schedule", "secret", "skills", "approvals", "audit", "agent", "doctor", "init"];

test("typos get the close names; far-off words get none", () => {
  const table: Array<[string, string[]]> = [
    ["aprovals", ["approvals"]],
    ["resmue", ["resume"]],
    ["sched", ["schedule"]],
    ["doctr", ["doctor"]],
    ["agnet", ["agent"]],
    // Controls: nothing close, nothing offered.
    ["deploy", []],
    ["x", []],
  ];
  for (const [typed, expected] of table) assert.deepEqual(suggest(typed, COMMANDS), expected, typed);
  assert.equal(editDistance("ab", "ba"), 1);
  assert.equal(didYouMean("runz", ["run", "runs"]), "; did you mean 'run' or 'runs'?");
  assert.equal(didYouMean("zzzz", ["run"]), "");
});

test("an unknown option, tool or command says what was probably meant", () => {
  assert.throws(() => parseCommandArgs(["--jsn"], { json: { type: "boolean" }, limit: { type: "string" } }), /Unknown option '--jsn'; did you mean '--json'\?/);
  const tools = [{ plugin: "files", name: "read_file", qualifiedName: "files.read_file" }, { plugin: "files", name: "write_file", qualifiedName: "files.write_file" }] as unknown as ToolInfo[];
  assert.throws(() => resolveToolName(tools, "files.raed_file", "tool"), /no tool files\.raed_file; did you mean 'files\.read_file'\?/);
  assert.throws(() => resolveToolName(tools, "files.nope", "tool"), (e: Error) => !e.message.includes("did you mean"));
  const cli = spawnSync(process.execPath, [BIN, "aprovals"], { encoding: "utf8" });
  assert.equal(cli.status, 2);
  assert.match(cli.stderr, /unknown command 'aprovals'; did you mean 'approvals'\?/);
});
