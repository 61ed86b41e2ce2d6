/**
 * An Extism plugin in a whole runtime: installed from a package folder through the same path as
 * a component, reaching the host only through the policy, and audited like a component.
 */
import assert from "node:assert/strict";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { AuditRecord } from "../../runtime/audit/index.js";
import type { Runtime, ToolCallOutcome } from "../../runtime/index.js";
import { extismModulePackage } from "../helpers/extism-modules.js";
import { buildExtismProbe, type ExtismPackage } from "../helpers/extism-probe.js";
import { defineTestAgent, FILES_PLUGIN, PROBE_PLUGIN, tempDir, testRuntime } from "../helpers/runtime.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;
let pkg: ExtismPackage;
let n = 0;

before(async () => {
  pkg = await buildExtismProbe();
  ({ runtime, dispose } = await testRuntime({ pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN, pkg.dir], sandbox: { callTimeoutMs: 5_000 } }));
  work = await tempDir();
  await writeFile(join(work, "notes.txt"), "one\n");
});
after(async () => {
  await dispose?.();
  await rm(work, { recursive: true, force: true });
  await rm(pkg.dir, { recursive: true, force: true });
});

const agent = (options: Parameters<typeof defineTestAgent>[2] = {}) =>
  defineTestAgent(runtime, `ex${++n}`, { mounts: [{ guest: "/work", host: work, mode: "rw" }], plugins: ["files", "probe", "extism-probe"], ...options });

const okOutput = (o: ToolCallOutcome) => {
  assert.equal(o.status, "ok", JSON.stringify(o));
  return (o as Extract<ToolCallOutcome, { status: "ok" }>).output;
};

test("the Extism plugin's tools are listed like a component's, risk from plugin.json", () => {
  const tools = runtime.tools().filter((t) => t.plugin === "extism-probe");
  const read = tools.find((t) => t.name === "read");
  assert.deepEqual(read && { qualifiedName: read.qualifiedName, capabilities: read.capabilities, risk: read.risk, inputSchema: read.inputSchema }, {
    qualifiedName: "extism-probe.read",
    capabilities: ["fs.read"],
    risk: "safe",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  });
  assert.equal(tools.find((t) => t.name === "write")?.risk, "guarded");
  assert.equal(runtime.plugins().find((p) => p.name === "extism-probe")?.format, "extism");
});

test("control: a read inside the granted mount succeeds", async () => {
  const run = await runtime.startRun({ agent: await agent() });
  const output = okOutput(await run.callTool("extism-probe.read", { path: "/work/notes.txt" })) as { ok: { $bytes: string } };
  assert.equal(Buffer.from(output.ok.$bytes, "base64").toString(), "one\n");
  await run.end();
});

test("a read outside the mount is denied by the policy, with a structured denial", async () => {
  const run = await runtime.startRun({ agent: await agent() });
  const outcome = await run.callTool("extism-probe.read", { path: "/etc/passwd" });
  assert.equal(outcome.status, "error", JSON.stringify(outcome));
  const error = (outcome as Extract<ToolCallOutcome, { status: "error" }>).error;
  assert.equal(error.kind, "denied");
  assert.deepEqual({ capability: error.denial?.capability, reason: error.denial?.reason }, { capability: "fs.read", reason: "outside-mount" });
  await run.end();
});

test("a write is Guarded as a component's is: it waits for approval, then the replay writes", async () => {
  const run = await runtime.startRun({ agent: await agent() });
  const data = Buffer.from("from extism").toString("base64");
  const first = await run.callTool("extism-probe.write", { path: "/work/out.txt", data });
  assert.equal(first.status, "approval_required", JSON.stringify(first));
  await assert.rejects(readFile(join(work, "out.txt")), { code: "ENOENT" });
  const approval = (first as Extract<ToolCallOutcome, { status: "approval_required" }>).approval;
  await runtime.approvals.decide(approval.id, { decision: "approve", scope: "once", by: "alice" });
  const replay = await run.resume();
  assert.equal(replay?.status, "ok", JSON.stringify(replay));
  assert.equal(await readFile(join(work, "out.txt"), "utf8"), "from extism");
  await run.end();
});

/** The fields of a record that do not name the run, the plugin, the time or the chain. */
function shape(r: AuditRecord): Record<string, unknown> {
  return {
    kind: r.kind,
    status: r.status,
    decision: r.decision,
    hostCall: r.hostCall,
    args: r.args,
    requestedCapabilities: r.requestedCapabilities,
    grantedCapabilities: r.grantedCapabilities,
    approvalRequired: r.approvalRequired,
    approvalResult: r.approvalResult,
    denial: r.denial,
    resultSize: r.resultSize,
  };
}

test("an Extism tool call and its host calls are audited as a component's are", async () => {
  const name = await agent();
  const records = async (tool: string): Promise<readonly AuditRecord[]> => {
    const run = await runtime.startRun({ agent: name });
    await run.callTool(tool, { path: "/work/notes.txt" });
    await run.callTool(tool, { path: "/etc/passwd" });
    await run.end();
    return (await runtime.audit.query({ runId: run.id, limit: 100 })).records;
  };
  const extism = await records("extism-probe.read");
  const component = await records("probe.read");
  const hostOf = (rs: readonly AuditRecord[]) => rs.filter((r) => r.kind === "host_call").map(shape);
  assert.deepEqual(hostOf(extism), hostOf(component));
  assert.deepEqual(hostOf(extism).map((r) => r.status), ["intent", "ok", "denied"]);
  const toolOf = (rs: readonly AuditRecord[]) => rs.filter((r) => r.kind === "tool_call");
  assert.deepEqual(toolOf(extism).map((r) => [r.status, r.plugin, r.tool]), [
    ["intent", "extism-probe", "extism-probe.read"],
    ["ok", "extism-probe", "extism-probe.read"],
    ["intent", "extism-probe", "extism-probe.read"],
    ["error", "extism-probe", "extism-probe.read"],
  ]);
  assert.deepEqual(toolOf(extism).map((r) => [r.status, r.requestedCapabilities, r.grantedCapabilities, r.approvalRequired]), toolOf(component).map((r) => [r.status, r.requestedCapabilities, r.grantedCapabilities, r.approvalRequired]));
  // The component probe reports a host error as `failed`; the Extism probe passes the denial on.
  assert.equal(toolOf(extism)[3]?.error?.code, "denied");
  assert.equal((await runtime.audit.verify()).ok, true);
});

test("an Extism fs_search is one audited host operation under the same rules; denied outside the mount", async () => {
  await writeFile(join(work, ".env"), "one=secret\n");
  const run = await runtime.startRun({ agent: await agent() });
  const found = okOutput(await run.callTool("extism-probe.search", { path: "/work", pattern: "one" })) as {
    ok: { matches: Array<{ path: string; line: number; text: string }>; filesScanned: number; bytesRead: number; skipped: { sensitive: number } };
  };
  assert.deepEqual(found.ok.matches.map((m) => [m.path, m.line, m.text]), [["/work/notes.txt", 1, "one"]]);
  assert.equal(found.ok.skipped.sensitive, 1);
  assert.equal(typeof found.ok.bytesRead, "number");
  const outside = await run.callTool("extism-probe.search", { path: "/etc", pattern: "root" });
  assert.equal(outside.status, "error", JSON.stringify(outside));
  assert.equal((outside as Extract<ToolCallOutcome, { status: "error" }>).error.denial?.reason, "outside-mount");
  await run.end();
  await rm(join(work, ".env"));
  const searches = (await runtime.audit.query({ runId: run.id, kind: "host_call", limit: 100 })).records.filter((r) => r.hostCall?.function === "search");
  assert.deepEqual(searches.map((r) => r.status), ["intent", "ok", "denied"]);
  const summary = JSON.parse(searches[1]!.args!) as { files: string[]; files_scanned: number };
  assert.deepEqual([summary.files, summary.files_scanned], [["/work/notes.txt"], found.ok.filesScanned]);
});

const refusals: Array<{ name: string; imports: string; capabilities?: string[]; problem?: RegExp }> = [
  { name: "control: only served kernel functions and a covered host function", imports: '(import "extism:host/user" "log_write" (func (param i64) (result i64)))', capabilities: ["log"] },
  { name: "Extism's own HTTP without http.fetch", imports: '(import "extism:host/env" "http_request" (func (param i64 i64) (result i64)))', capabilities: ["log"], problem: /extism:host\/env\.http_request: served by the http proxy; needs http\.fetch/ },
  { name: "control: WASI sockets need nothing (served, every call refused)", imports: '(import "wasi_snapshot_preview1" "sock_recv" (func (param i32 i32 i32 i32 i32 i32) (result i32)))', capabilities: [] },
  { name: "a WASI function this runtime does not serve", imports: '(import "wasi_snapshot_preview1" "sock_open" (func (param i32 i32 i32) (result i32)))', capabilities: ["http.fetch"], problem: /wasi_snapshot_preview1\.sock_open: not a WASI preview1 function this runtime serves/ },
  { name: "a host interface the manifest does not declare", imports: '(import "extism:host/user" "shell_exec" (func (param i64) (result i64)))', capabilities: ["log"], problem: /extism:host\/user\.shell_exec: needs one of shell\.exec/ },
];
for (const row of refusals) {
  test(`install of an Extism package: ${row.name}`, async () => {
    const bad = await extismModulePackage(`install-${refusals.indexOf(row)}`, { imports: row.imports, capabilities: row.capabilities ?? [] });
    try {
      if (!row.problem) assert.equal((await runtime.installPlugin(bad.dir)).action, "installed");
      else {
        await assert.rejects(runtime.installPlugin(bad.dir), (e: Error & { code?: string }) => e.code === "imports_not_declared" && row.problem!.test(e.message));
        assert.ok(!runtime.plugins().some((p) => p.name === bad.manifest.name));
      }
    } finally {
      await rm(bad.dir, { recursive: true, force: true });
    }
  });
}
