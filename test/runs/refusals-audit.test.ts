import assert from "node:assert/strict";
import { link, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { AuditLog, DenialInput } from "../../runtime/audit/index.js";
import type { Runtime } from "../../runtime/index.js";
import { auditUnboundCalls, UNBOUND_CALLS_RECORDED } from "../../runtime/runs/unbound-calls.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;
let outside: string;
let n = 0;

before(async () => {
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 5_000 } }));
  work = await tempDir();
  outside = await tempDir();
  await writeFile(join(work, "plain.txt"), "plain\n");
  await writeFile(join(outside, "secret.txt"), "secret\n");
  await symlink(join(outside, "secret.txt"), join(work, "link.txt"));
  await symlink(outside, join(work, "dir-link"));
  // A second name inside the mount for a file whose first name is outside it.
  await link(join(outside, "secret.txt"), join(work, "hard.txt")).catch(async () => {
    // Different file systems: make both names inside the mount, which the proxy refuses alike.
    await mkdir(join(work, "h"), { recursive: true });
    await writeFile(join(work, "h", "a.txt"), "a");
    await link(join(work, "h", "a.txt"), join(work, "hard.txt"));
  });
});
after(async () => {
  await dispose();
  await rm(work, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe("a link the fs proxy refuses at the effect is audited as denied", () => {
  const cases = [
    { name: "control: a plain file is read, outcome ok", path: "/work/plain.txt", status: "ok", reason: null },
    { name: "a symlink to a file outside", path: "/work/link.txt", status: "denied", reason: "symlink" },
    { name: "a path through a symlinked folder", path: "/work/dir-link/secret.txt", status: "denied", reason: "symlink" },
    { name: "a hard link", path: "/work/hard.txt", status: "denied", reason: "hard-link" },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const agent = await defineTestAgent(runtime, `ln${++n}`, { plugins: ["files"], mounts: [{ guest: "/work", host: work }] });
      const run = await runtime.startRun({ agent });
      const outcome = await run.callTool("files.read_file", { path: c.path });
      await run.end();
      assert.equal(outcome.status, c.status === "ok" ? "ok" : "error");
      const { records } = await runtime.audit.query({ runId: run.id, kind: "host_call" });
      const outcomes = records.filter((r) => r.hostCall?.proxy === "fs" && r.intentSeq !== null);
      assert.equal(outcomes.length, 1, JSON.stringify(records));
      const [record] = outcomes;
      assert.equal(record!.status, c.status);
      assert.equal(record!.denial?.reason ?? null, c.reason);
      assert.equal(record!.decision, c.status === "ok" ? "allow" : "deny");
      assert.ok((await runtime.audit.verify()).ok, "the chain still verifies with denied outcomes");
    });
  }
});

describe("host calls before an instance is bound are refused and audited", () => {
  test("the probe's describe-time read is on record as refused; control: the same read bound to a run is allowed", async () => {
    // The probe reads a file while it describes its tools, which an instance does unbound: the
    // sandbox describes a plugin on a fresh instance no run is bound to (after the run below).
    const agent = await defineTestAgent(runtime, `bound${++n}`, { plugins: ["probe"], mounts: [{ guest: "/work", host: work }] });
    const run = await runtime.startRun({ agent });
    assert.equal((await run.callTool("probe.read", { path: "/work/plain.txt" })).status, "ok");
    await run.end();
    const bound = await runtime.audit.query({ runId: run.id, kind: "host_call" });
    assert.deepEqual(bound.records.filter((r) => r.hostCall?.proxy === "fs").map((r) => r.status), ["intent", "ok"]);

    const installed = await runtime.installer.registry.get("probe");
    const { plugin } = await runtime.installer.load(installed!, runtime.sandbox);
    assert.ok((await runtime.sandbox.describe(plugin)).length > 0, "the unbound instance described its tools");
    const unbound = async () => {
      const { records } = await runtime.audit.query({ kind: "host_call", status: "denied", limit: 1000 });
      return records.filter((r) => r.denial?.reason === "unbound-instance" && r.plugin === "probe");
    };
    for (let i = 0; i < 2000 && (await unbound()).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const [first] = await unbound();
    assert.ok(first, "the describe-time host call is recorded");
    assert.equal(first.hostCall?.proxy, "fs");
    assert.equal(first.hostCall?.function, "read");
    assert.equal(first.status, "denied");
  });

  test("a guest looping on refused calls costs a bounded number of rows, and the rest are counted", async () => {
    const rows: DenialInput[] = [];
    const audit = { appendDenial: async (d: DenialInput) => void rows.push(d) } as unknown as AuditLog;
    const listen = auditUnboundCalls(audit);
    const call = (instanceId: number) => ({ type: "unbound-host-call" as const, instanceId, plugin: "p", iface: "log", fn: "write" });
    for (let i = 0; i < UNBOUND_CALLS_RECORDED; i++) listen(call(1));
    for (let i = 0; i < 1000; i++) listen(call(2));
    listen({ type: "instance-destroyed", instanceId: 1, plugin: "p", reason: "described" });
    listen({ type: "instance-destroyed", instanceId: 2, plugin: "p", reason: "described" });
    await new Promise((resolve) => setImmediate(resolve));
    const of = (id: number) => rows.filter((r) => r.runId === `unbound-instance-${id}`);
    // Control: up to the cap, one row per call and no count.
    assert.equal(of(1).length, UNBOUND_CALLS_RECORDED);
    assert.ok(of(1).every((r) => r.denial.reason === "unbound-instance"));
    assert.equal(of(2).length, UNBOUND_CALLS_RECORDED + 1);
    const count = of(2).at(-1)!;
    assert.equal(count.denial.reason, "unbound-instance-count");
    assert.deepEqual(count.args, { fn: "write", refused: 1000 - UNBOUND_CALLS_RECORDED });
  });
});
