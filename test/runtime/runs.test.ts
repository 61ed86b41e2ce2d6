import assert from "node:assert/strict";
import { readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let alpha: string;
let beta: string;
let outside: string;

before(async () => {
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 5_000, memoryMaxMb: 64 } }));
  alpha = await tempDir();
  beta = await tempDir();
  outside = await tempDir();
  await writeFile(join(alpha, "who.txt"), "alpha\n");
  await writeFile(join(beta, "who.txt"), "beta\n");
  await writeFile(join(outside, "secret.txt"), "outside secret\n");
});
after(async () => {
  await dispose();
  for (const dir of [alpha, beta, outside]) await rm(dir, { recursive: true, force: true });
});

let counter = 0;
/** A fresh agent granted `host` at /work (writes lowered to Safe: approvals are tested elsewhere). */
const mount = async (host: string, mode: "ro" | "rw" = "rw") => ({
  agent: await defineTestAgent(runtime, `t${++counter}`, { mounts: [{ guest: "/work", host, mode }], lowerToSafe: ["files.write_file", "files.edit_file"] }),
});

test("two concurrent runs with different mounts each see only their own", async () => {
  const [a, b] = await Promise.all([runtime.startRun(await mount(alpha)), runtime.startRun(await mount(beta))]);
  const reads = await Promise.all(
    Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).callTool("files.read_file", { path: "/work/who.txt" })),
  );
  reads.forEach((outcome, i) => {
    assert.equal(outcome.status, "ok");
    assert.equal((outcome as { output: { content: string } }).output.content, i % 2 === 0 ? "alpha\n" : "beta\n");
  });
  await a.callTool("files.write_file", { path: "/work/only-alpha.txt", content: "a" });
  const seen = await b.callTool("files.list_dir", { path: "/work" });
  assert.ok(!JSON.stringify(seen).includes("only-alpha"));
  await Promise.all([a.end(), b.end()]);
});

// Escapes through the real plugin in the real sandbox, each beside a control that succeeds.
const escapes: Array<{ name: string; tool: string; input: Record<string, unknown>; setup?: () => Promise<void>; expect: "ok" | string }> = [
  { name: "control: read inside the mount", tool: "files.read_file", input: { path: "/work/who.txt" }, expect: "ok" },
  { name: "absolute path outside the mount", tool: "files.read_file", input: { path: "/etc/passwd" }, expect: "outside-mount" },
  { name: "dot-dot out of the mount", tool: "files.read_file", input: { path: "/work/../etc/passwd" }, expect: "outside-mount" },
  { name: "dot-dot out and back in", tool: "files.read_file", input: { path: "/work/../work/who.txt" }, expect: "outside-mount" },
  {
    name: "symlink leading out",
    tool: "files.read_file",
    input: { path: "/work/link/secret.txt" },
    setup: async () => symlink(outside, join(alpha, "link")).catch(() => {}),
    expect: "symlink",
  },
  {
    name: "sensitive name inside the mount",
    tool: "files.read_file",
    input: { path: "/work/.env" },
    setup: async () => writeFile(join(alpha, ".env"), "TOKEN=1"),
    expect: "sensitive-name",
  },
  { name: "control: write inside the mount", tool: "files.write_file", input: { path: "/work/new.txt", content: "ok" }, expect: "ok" },
  { name: "write outside the mount", tool: "files.write_file", input: { path: "/tmp/escape.txt", content: "x" }, expect: "outside-mount" },
  // A relative path resolves against the first mount: a tool that only writes lists its mounts too.
  { name: "control: write to a relative path", tool: "files.write_file", input: { path: "rel/new.txt", content: "ok" }, expect: "ok" },
  { name: "control: read a relative path", tool: "files.read_file", input: { path: "who.txt" }, expect: "ok" },
  { name: "relative write dot-dot out of the mount", tool: "files.write_file", input: { path: "../escape.txt", content: "x" }, expect: "outside-mount" },
  { name: "relative write to a sensitive name", tool: "files.write_file", input: { path: "rel/.env", content: "x" }, expect: "sensitive-name" },
];

for (const row of escapes) {
  test(`escape table: ${row.name}`, async () => {
    await row.setup?.();
    const run = await runtime.startRun(await mount(alpha));
    const outcome = await run.callTool(row.tool, row.input);
    await run.end();
    if (row.expect === "ok") {
      assert.equal(outcome.status, "ok", JSON.stringify(outcome));
    } else {
      assert.equal(outcome.status, "error");
      assert.equal((outcome as { error: { denial?: { reason: string } } }).error.denial?.reason, row.expect, JSON.stringify(outcome));
    }
  });
}

test("a read-only mount refuses writes; control: the same write on a rw mount", async () => {
  const ro = await runtime.startRun(await mount(alpha, "ro"));
  const denied = await ro.callTool("files.write_file", { path: "/work/ro.txt", content: "x" });
  assert.equal(denied.status, "error");
  const rw = await runtime.startRun(await mount(alpha, "rw"));
  assert.equal((await rw.callTool("files.write_file", { path: "/work/rw.txt", content: "x" })).status, "ok");
  assert.equal(await readFile(join(alpha, "rw.txt"), "utf8"), "x");
  await Promise.all([ro.end(), rw.end()]);
});

test("no grant means no files: deny by default", async () => {
  const run = await runtime.startRun({ agent: await defineTestAgent(runtime, "nothing") });
  const outcome = await run.callTool("files.read_file", { path: "/work/who.txt" });
  assert.equal(outcome.status, "error");
  await run.end();
});

test("a trap yields a typed error and the run's next call gets a fresh instance", async () => {
  const run = await runtime.startRun(await mount(alpha));
  await run.callTool("probe.count", {});
  assert.equal(((await run.callTool("probe.count", {})) as { output: { counter: number } }).output.counter, 2);
  const trapped = await run.callTool("probe.trap", {});
  assert.equal(trapped.status, "error");
  assert.equal((trapped as { error: { kind: string } }).error.kind, "trapped");
  const fresh = await run.callTool("probe.count", {});
  assert.equal((fresh as { output: { counter: number } }).output.counter, 1, "a fresh instance starts from zero");
  assert.ok(run.events.some((e) => e.type === "instance" && e.action === "replaced"));
  await run.end();
});

test("a deadline stops the call and the next call gets a fresh instance", async () => {
  const run = await runtime.startRun({ agent: await defineTestAgent(runtime, "looper") });
  const outcome = await run.callTool("probe.loop", {}, { timeoutMs: 200 });
  assert.equal((outcome as { error: { kind: string } }).error.kind, "deadline");
  assert.equal((await run.callTool("probe.echo", { x: 1 })).status, "ok");
  await run.end();
});

test("calls after a run ends are refused", async () => {
  const run = await runtime.startRun(await mount(alpha));
  assert.equal((await run.callTool("files.read_file", { path: "/work/who.txt" })).status, "ok");
  await run.end();
  await assert.rejects(run.callTool("files.read_file", { path: "/work/who.txt" }), { code: "run_ended" });
});

test("bad task grants are refused with the field named", async () => {
  const { agent } = await mount(alpha, "ro");
  await assert.rejects(runtime.startRun({ agent, grants: { "fs.read": { mounts: [{ guest: "work", host: alpha }] } } }), { code: "invalid_input" });
  await assert.rejects(runtime.startRun({ agent, grants: { net: true } }), { code: "invalid_input" });
  // Wider than the agent: a task may only narrow.
  await assert.rejects(runtime.startRun({ agent, grants: { "fs.read": { mounts: [{ guest: "/work", host: beta }] } } }), { code: "invalid_input" });
  await assert.rejects(runtime.startRun({ agent: "no-such-agent" }), { code: "not_found" });
});

test("unknown and ambiguous tools are refused", async () => {
  const run = await runtime.startRun({ agent: await defineTestAgent(runtime, "unknown-tools") });
  await assert.rejects(run.callTool("nope", {}), { code: "not_found" });
  await run.end();
});

test("guest logs reach the run's events", async () => {
  const run = await runtime.startRun({ agent: await defineTestAgent(runtime, "logger") });
  await run.callTool("probe.log", { message: "hello from the guest" });
  assert.ok(run.events.some((e) => e.type === "log" && e.message === "hello from the guest"));
  await run.end();
});
