/**
 * The bridge table: one `exec` host function taking the raw guest argument list. Malformed
 * requests are `invalid-input` at the edge; each row has a well-formed control beside it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { SHELL_HOST_FUNCTION_NAMES, shellHostFunctions } from "../../../host-proxies/shell/index.js";
import type { ExecResult, HostFunction } from "../../../host-proxies/shell/index.js";
import { bytes, proxyFor, rejectsWith, scratch } from "./_fixtures.js";

async function setup(t: TestContext): Promise<Record<string, HostFunction>> {
  const s = await scratch(t, { "work/a.txt": "a" });
  // sandbox: false so the table runs on hosts without bwrap too; bwrap is still used if present.
  return shellHostFunctions(await proxyFor(t, s, { commands: ["cat"], sandbox: false }));
}

const CONTROL = { argv: ["cat", "a.txt"] };

const ROWS: Array<{ name: string; args: unknown }> = [
  { name: "no arguments", args: [] },
  { name: "two arguments", args: [CONTROL, CONTROL] },
  { name: "not an argument list", args: CONTROL },
  { name: "null request", args: [null] },
  { name: "array request", args: [["cat"]] },
  { name: "unknown field", args: [{ ...CONTROL, shell: true }] },
  { name: "argv a string", args: [{ argv: "cat a.txt" }] },
  { name: "argv with a number", args: [{ argv: ["cat", 1] }] },
  { name: "cwd a number", args: [{ ...CONTROL, cwd: 1 }] },
  { name: "stdin a string", args: [{ ...CONTROL, stdin: "x" }] },
  { name: "stdin a plain array", args: [{ ...CONTROL, stdin: [120] }] },
  { name: "timeoutMs negative", args: [{ ...CONTROL, timeoutMs: -1 }] },
  { name: "timeoutMs not an integer", args: [{ ...CONTROL, timeoutMs: 1.5 }] },
  { name: "timeoutMs above u32", args: [{ ...CONTROL, timeoutMs: 2 ** 32 }] },
  { name: "timeoutMs a bigint", args: [{ ...CONTROL, timeoutMs: 5n }] },
];

test("host functions: the table has exec and nothing inherited", async (t) => {
  const table = await setup(t);
  assert.deepEqual(Object.keys(table), [...SHELL_HOST_FUNCTION_NAMES]);
  assert.equal(Object.getPrototypeOf(table), null);
  assert.equal(table.toString, undefined);
  assert.ok(Object.isFrozen(table));
});

test("host functions: malformed requests are invalid-input at the edge", async (t) => {
  const table = await setup(t);
  const exec = table.exec as HostFunction;
  for (const row of ROWS) {
    await t.test(row.name, async () => {
      await rejectsWith(exec(row.args as unknown[]), { tag: "invalid-input" });
      const r = (await exec([CONTROL])) as ExecResult;
      assert.equal(r.stdout.text, "a", "control");
    });
  }
});

test("host functions: a full request, as jco lifts it", async (t) => {
  const exec = (await setup(t)).exec as HostFunction;
  const r = (await exec([{ argv: ["cat"], cwd: "/work", stdin: bytes("in"), timeoutMs: 5_000 }])) as ExecResult;
  assert.deepEqual(
    { ...r, durationMs: 0 },
    { exitCode: 0, signal: undefined, timedOut: false, stdout: { text: "in", bytes: 2n, linesDropped: 0n }, stderr: { text: "", bytes: 0n, linesDropped: 0n }, durationMs: 0 },
  );
  await rejectsWith(exec([{ argv: ["/bin/cat"], cwd: undefined, stdin: undefined, timeoutMs: undefined }]), { tag: "denied", reason: "command-path" });
});
