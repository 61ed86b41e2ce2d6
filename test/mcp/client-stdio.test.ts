/**
 * The MCP client against the reference servers published on npm (server-filesystem,
 * server-everything), run confined and offline: nothing is offered before a person accepts the
 * definitions; then each tool is a Guarded ToolCall (approval, audit intent and outcome, a
 * least-privilege report entry); policy refusals and unknown tools are clear errors.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir, testRuntime } from "../helpers/runtime.js";
import { acceptServer, defineMcpAgent, EVERYTHING_SERVER, FS_SERVER, NO_SANDBOX, NODE_MODULES } from "./client-fixtures.js";

test("filesystem server: accepted, Guarded, approved, audited, reported", { skip: NO_SANDBOX, timeout: 120_000 }, async () => {
  const { runtime, dispose } = await testRuntime();
  try {
    const ws = await tempDir();
    await writeFile(join(ws, "a.txt"), "hello from the mount\n");
    const agent = await defineMcpAgent(runtime, "mcpfs", {
      files: { command: "node", args: [FS_SERVER, "/data"], read_only: [NODE_MODULES], mounts: [{ guest: "/data", host: ws, mode: "rw" }] },
    });
    assert.deepEqual(runtime.agentTools(agent).map((t) => t.qualifiedName), [], "nothing is offered before a person accepts the definitions");
    const review = await runtime.mcpClient.review(agent, "files");
    assert.equal(review.pinned, undefined);
    assert.ok(review.diff.added.includes("read_text_file") && review.diff.added.includes("write_file"), review.diff.lines.join("\n"));
    await runtime.mcpClient.accept(agent, "files", { diffHash: review.diff.hash, by: "alice" });
    const tools = runtime.agentTools(agent);
    const read = tools.find((t) => t.qualifiedName === "files.read_text_file");
    assert.equal(read?.risk, "guarded");

    const run = await runtime.startRun({ agent: "mcpfs" });
    const first = await run.callTool("files.read_text_file", { path: "/data/a.txt" });
    assert.equal(first.status, "approval_required", JSON.stringify(first));
    assert.equal(first.status === "approval_required" && first.approval.kind, "tool_call");
    await runtime.approvals.decide(first.status === "approval_required" ? first.approval.id : "", { decision: "approve", by: "alice" });
    const done = await run.resume();
    assert.equal(done?.status, "ok", JSON.stringify(done));
    assert.match(JSON.stringify(done?.status === "ok" && done.output), /hello from the mount/);

    // A write the person approves lands in the mount (the control for the confinement tests).
    const write = await run.callTool("files.write_file", { path: "/data/out.txt", content: "written by the server\n" });
    await runtime.approvals.decide(write.status === "approval_required" ? write.approval.id : "", { decision: "approve", by: "alice" });
    assert.equal((await run.resume())?.status, "ok");
    assert.equal(await readFile(join(ws, "out.txt"), "utf8"), "written by the server\n");

    const { records } = await runtime.audit.query({ runId: run.id, kind: "tool_call", limit: 100 });
    const reads = records.filter((r) => r.tool === "files.read_text_file").map((r) => r.status);
    assert.deepEqual(reads, ["denied", "intent", "ok"], "approval-required denial, then intent and outcome");
    const report = await run.end();
    assert.ok(report.used.includes("mcp:files"), JSON.stringify(report));
    assert.equal(report.toolCalls.ok, 2);
  } finally {
    await dispose();
  }
});

test("policy: denied approval, bad input, unknown tool, a tool left out of the subset", { skip: NO_SANDBOX, timeout: 120_000 }, async () => {
  const { runtime, dispose } = await testRuntime();
  try {
    const ws = await tempDir();
    await writeFile(join(ws, "a.txt"), "x\n");
    const agent = await defineMcpAgent(runtime, "mcpdeny", {
      files: { command: "node", args: [FS_SERVER, "/data"], read_only: [NODE_MODULES], mounts: [{ guest: "/data", host: ws, mode: "ro" }], tools: ["read_text_file", "list_directory"] },
    }, { approvals: { raise_risk: [{ tool: "files.list_directory", to: "unsafe" }] } });
    await acceptServer(runtime, agent, "files");
    assert.deepEqual(runtime.agentTools(agent).map((t) => t.qualifiedName).sort(), ["files.list_directory", "files.read_text_file"]);
    const run = await runtime.startRun({ agent: "mcpdeny" });

    const denied = await run.callTool("files.read_text_file", { path: "/data/a.txt" });
    await runtime.approvals.decide(denied.status === "approval_required" ? denied.approval.id : "", { decision: "deny", by: "alice", reason: "not now" });
    const after = await run.resume();
    assert.equal(after?.status === "error" && after.error.kind, "approval-denied");

    // Raised to Unsafe: still asks a person before the call (an MCP call is one effect).
    assert.equal(runtime.agentTools(agent).find((t) => t.qualifiedName === "files.list_directory")?.risk, "unsafe");
    const unsafe = await run.callTool("files.list_directory", { path: "/data" });
    assert.equal(unsafe.status, "approval_required", JSON.stringify(unsafe));
    assert.match(unsafe.status === "approval_required" ? unsafe.approval.reason : "", /is Unsafe/);
    await runtime.approvals.decide(unsafe.status === "approval_required" ? unsafe.approval.id : "", { decision: "deny", by: "alice" });
    await run.resume();

    const bad = await run.callTool("files.read_text_file", { path: 42 });
    assert.equal(bad.status === "error" && bad.error.kind, "invalid-input", JSON.stringify(bad));

    await assert.rejects(run.callTool("files.write_file", { path: "/data/b", content: "" }), /has no tool files\.write_file/);
    await assert.rejects(run.callTool("files.nope", {}), /has no tool files\.nope/);
    const { records } = await runtime.audit.query({ runId: run.id, kind: "tool_call", limit: 100 });
    assert.equal(records.filter((r) => r.status === "intent").length, 0, "nothing reached the server");
    await run.end();
  } finally {
    await dispose();
  }
});

test("everything server: names mapped, an acknowledged lower to Safe runs without approval, env scrubbed, secrets redacted", { skip: NO_SANDBOX, timeout: 120_000 }, async () => {
  const { runtime, dispose } = await testRuntime();
  try {
    await runtime.secrets.set("probe-token", "s3cret-value-for-env");
    const agent = await defineMcpAgent(
      runtime,
      "mcpevery",
      { every: { command: "node", args: [EVERYTHING_SERVER, "stdio"], read_only: [NODE_MODULES], env: { PROBE_TOKEN: { secret: "probe-token" }, PROBE_MODE: "plain-value" } } },
      { approvals: { lower_risk: ["echo", "get_sum", "get_env"].map((t) => ({ tool: `every.${t}`, to: "safe", acknowledged: true })) } },
    );
    await acceptServer(runtime, agent, "every");
    const tools = runtime.agentTools(agent);
    assert.equal(tools.find((t) => t.qualifiedName === "every.get_sum")?.mcp?.mcpName, "get-sum");
    assert.equal(tools.find((t) => t.qualifiedName === "every.get_tiny_image")?.risk, "guarded");
    const run = await runtime.startRun({ agent: "mcpevery" });
    const echo = await run.callTool("every.echo", { message: "hi" });
    assert.deepEqual(echo.status === "ok" && echo.output, "Echo: hi");
    const sum = await run.callTool("every.get_sum", { a: 2, b: 3 });
    assert.match(String(sum.status === "ok" && sum.output), /is 5/);
    const env = await run.callTool("every.get_env", {});
    assert.equal(env.status, "ok");
    const vars = JSON.parse(String(env.status === "ok" && env.output)) as Record<string, string>;
    assert.deepEqual(Object.keys(vars).sort(), ["HOME", "LANG", "PATH", "PROBE_MODE", "PROBE_TOKEN", "PWD", "TERM"], "the runtime's own environment never reaches the server");
    // The secret reached the server; its echo is redacted before the model sees it.
    assert.equal(vars.PROBE_TOKEN, "[REDACTED]");
    assert.doesNotMatch(JSON.stringify(env), /s3cret-value-for-env/);
    assert.equal(vars.PROBE_MODE, "plain-value", "control: a plain value is shown as it is");
    await run.end();
  } finally {
    await dispose();
  }
});
