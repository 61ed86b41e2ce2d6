import assert from "node:assert/strict";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime, ToolCallOutcome } from "../../../runtime/index.js";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { tempDir, testRuntime } from "../../helpers/runtime.js";

const SHELL = join(PROJECT_ROOT, "plugins", "shell");
let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;

before(async () => {
  ({ runtime, dispose } = await testRuntime({ pluginDirs: [SHELL] }));
  work = await tempDir();
  await mkdir(join(work, "src"));
  await writeFile(join(work, "src", "a.txt"), "alpha\nbeta\n");
  await runtime.defineAgent({
    name: "operator",
    description: "runs a few commands in its workspace",
    model: { provider: "anthropic", id: "m" },
    system_prompt: "x",
    plugins: [{ name: "shell", version: "*" }],
    grants: {
      "shell.exec": {
        mounts: [{ guest: "/workspace", host: work, mode: "rw" }],
        commands: [{ name: "ls" }, { name: "cat" }, { name: "find", deny: [] }],
      },
    },
  });
});
after(async () => {
  await dispose();
  await rm(work, { recursive: true, force: true });
});

const approvalId = (o: ToolCallOutcome) => {
  assert.equal(o.status, "approval_required", JSON.stringify(o));
  return (o as Extract<ToolCallOutcome, { status: "approval_required" }>).approval.id;
};

test("each command is an Unsafe effect: approved for its exact argv, then it runs confined", async () => {
  const run = await runtime.startRun({ agent: "operator" });
  const first = await run.callTool("shell.run_command", { argv: ["cat", "src/a.txt"] });
  const id = approvalId(first);
  const approval = await runtime.approvals.get(id);
  assert.deepEqual(approval?.effect, { argv: ["cat", "src/a.txt"], cwd: null, fn: "exec" });
  await runtime.approvals.decide(id, { decision: "approve", by: "alice" });
  const replay = await run.resume();
  assert.equal(replay?.status, "ok", JSON.stringify(replay));
  assert.equal((replay as { output: { stdout: string; exit_code: number } }).output.stdout, "alpha\nbeta\n");
  // The approval was for that argv: another file is another effect.
  approvalId(await run.callTool("shell.run_command", { argv: ["cat", "/etc/hostname"] }));
  await run.end();
});

test("a permitted command cannot read outside its mounts; control: inside works", async () => {
  await writeFile(join(work, "inside.txt"), "inside\n");
  const outside = await tempDir();
  await writeFile(join(outside, "secret.txt"), "outside secret\n");
  const run = await runtime.startRun({ agent: "operator" });
  for (const [argv, expectOk] of [
    [["cat", "inside.txt"], true],
    [["cat", join(outside, "secret.txt")], false],
    [["cat", "../../../../" + join(outside, "secret.txt")], false],
  ] as const) {
    const id = approvalId(await run.callTool("shell.run_command", { argv }));
    await runtime.approvals.decide(id, { decision: "approve", by: "alice" });
    const out = (await run.resume()) as { status: string; output: { stdout: string; exit_code: number } };
    assert.equal(out.status, "ok");
    if (expectOk) assert.equal(out.output.stdout, "inside\n");
    else {
      assert.notEqual(out.output.exit_code, 0, argv.join(" "));
      assert.ok(!out.output.stdout.includes("outside secret"));
    }
  }
  await run.end();
  await rm(outside, { recursive: true, force: true });
});

test("commands, options and paths outside the grant are denied before anyone is asked", async () => {
  const run = await runtime.startRun({ agent: "operator" });
  for (const argv of [["rm", "-rf", "src"], ["/bin/cat", "src/a.txt"], ["find", ".", "-exec", "sh", "-c", "id", ";"]]) {
    const outcome = await run.callTool("shell.run_command", { argv });
    assert.equal(outcome.status, "error", `${argv.join(" ")}: ${JSON.stringify(outcome)}`);
    assert.equal((outcome as { error: { kind: string } }).error.kind, "denied");
  }
  assert.equal(await readFile(join(work, "src", "a.txt"), "utf8"), "alpha\nbeta\n");
  await run.end();
});

test("a command that runs other programs is refused unless its grant says runs_programs; control: with it", async () => {
  const define = (name: string, runsPrograms: boolean) =>
    runtime.defineAgent({
      name,
      description: "runs env",
      model: { provider: "anthropic", id: "m" },
      system_prompt: "x",
      plugins: [{ name: "shell", version: "*" }],
      grants: { "shell.exec": { mounts: [{ guest: "/workspace", host: work, mode: "ro" }], commands: [{ name: "env", runs_programs: runsPrograms }] } },
      acknowledge: ["shell-program-runner"],
    });
  await define("plain-env", false);
  await define("runner-env", true);
  const plain = await runtime.startRun({ agent: "plain-env" });
  const refused = await plain.callTool("shell.run_command", { argv: ["env"] });
  assert.equal((refused as { error: { denial: { reason: string } } }).error.denial.reason, "dangerous-command");
  const runner = await runtime.startRun({ agent: "runner-env" });
  const id = approvalId(await runner.callTool("shell.run_command", { argv: ["env"] }));
  await runtime.approvals.decide(id, { decision: "approve", by: "alice" });
  const out = (await runner.resume()) as { output: { stdout: string } };
  assert.match(out.output.stdout, /^PATH=/m);
  assert.doesNotMatch(out.output.stdout, /CLAWHIVE|SECRET|npm_/, "the scrubbed environment only");
  await Promise.all([plain.end(), runner.end()]);
});
