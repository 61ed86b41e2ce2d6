/**
 * A plugin or MCP server holding a secret (a config value naming it; an MCP server's env) may
 * hand it back transformed, where redaction does not see it. The run's report and the approval
 * a person is shown say which ToolCalls read which secrets (names, never values); with
 * `secrets.refuse_transformed_outputs` (the agent's, or the operator's) an output or a log line
 * holding one in a documented spelling is refused as the tool's error `secret_in_output`,
 * audited as a denial. Each refusal beside a control that passes.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { approvalBlock } from "../../runtime/cli/approvals.js";
import { tempDir, testRuntime } from "../helpers/runtime.js";
import { acceptServer, defineMcpAgent, NO_SANDBOX, probeSpec } from "../mcp/client-fixtures.js";

const WASI_PROBE = join(PROJECT_ROOT, "test", "plugins", "wasi-probe");
const SECRET = "sk-Live-7f3K9qZx2Wm";
const OTHER = "pk-Test-4b8N1rYa6Qe";
const reverse = (s: string) => [...s].reverse().join("");
const rot13 = (s: string) => s.replace(/[a-z]/gi, (c) => String.fromCharCode(((c.charCodeAt(0) - (c <= "Z" ? 65 : 97) + 13) % 26) + (c <= "Z" ? 65 : 97)));

/** Outputs a plugin that kept the secret could make, each also made from another value (the control). */
const SPELLINGS: Array<{ name: string; output: (value: string) => unknown }> = [
  { name: "reversed", output: (v) => reverse(v) },
  { name: "upper case", output: (v) => v.toUpperCase() },
  { name: "reversed, in base64", output: (v) => Buffer.from(reverse(v)).toString("base64") },
  { name: "hex with separators", output: (v) => Buffer.from(v).toString("hex").replace(/(..)/g, "$1:") },
  { name: "ROT13", output: (v) => rot13(v) },
  { name: "spaced out", output: (v) => [...v].join(" ") },
  { name: "split across fields", output: (v) => ({ head: v.slice(0, 9), tail: v.slice(9) }) },
];

let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;

async function defineProbeAgent(name: string, options: { strict: boolean }): Promise<void> {
  await runtime.defineAgent({
    name,
    description: `test agent ${name}`,
    model: { provider: "anthropic", id: "test-model" },
    system_prompt: "test",
    plugins: [{ name: "wasi-probe", version: "*", config: { api_token: { secret: "probe-token" } } }],
    grants: { log: {}, "fs.read": { mounts: [{ guest: "/w", host: work }] }, "fs.write": { mounts: [{ guest: "/w", host: work, mode: "rw" }] } },
    ...(options.strict ? { secrets: { refuse_transformed_outputs: true } } : {}),
  });
}

before(async () => {
  work = await tempDir();
  ({ runtime, dispose } = await testRuntime({ pluginDirs: [WASI_PROBE], sandbox: { callTimeoutMs: 20_000 } }));
  await runtime.setSecret("probe-token", SECRET);
  await defineProbeAgent("strict", { strict: true });
  await defineProbeAgent("lenient", { strict: false });
});
after(async () => dispose?.());

/** A run of `agent` whose instance read the secret first (its ToolCall call_1). */
async function holdingRun(agent: string) {
  const run = await runtime.startRun({ agent });
  const read = await run.callTool("wasi-probe.config", { key: "api_token" });
  assert.deepEqual(read.status === "ok" ? read.output : read, { value: "[REDACTED]" });
  return run;
}

describe("an output holding the secret transformed is refused; control: the same shape without it passes", () => {
  for (const row of SPELLINGS) {
    it(row.name, async () => {
      const run = await holdingRun("strict");
      try {
        const refused = await run.callTool("wasi-probe.echo", { value: row.output(SECRET) });
        assert.equal(refused.status, "error", JSON.stringify(refused));
        const error = refused.status === "error" ? refused.error : undefined;
        assert.equal(error?.kind, "secret_in_output");
        assert.match(error!.message, /holds secret probe-token/);
        assert.ok(!JSON.stringify(refused).includes(SECRET) && !JSON.stringify(refused).includes(reverse(SECRET)));
        // Audited: the ToolCall's outcome is a denial with the reason code.
        const records = (await runtime.audit.query({ runId: run.id, kind: "tool_call", limit: 100 })).records.filter((r) => r.toolCall?.id === refused.id);
        assert.deepEqual(records.map((r) => [r.status, r.denial?.reason ?? null]), [["intent", null], ["denied", "secret_in_output"]]);
        const control = await run.callTool("wasi-probe.echo", { value: row.output(OTHER) });
        assert.equal(control.status, "ok", JSON.stringify(control));
        assert.deepEqual(control.status === "ok" && control.output, row.output(OTHER));
      } finally {
        await run.end();
      }
    });
  }

  it("a tool's error holding it transformed; control: an error without it", async () => {
    const run = await holdingRun("strict");
    try {
      const refused = await run.callTool("wasi-probe.echo", { error: `token ${SECRET.toLowerCase()} rejected` });
      assert.equal(refused.status === "error" && refused.error.kind, "secret_in_output");
      const control = await run.callTool("wasi-probe.echo", { error: `token ${OTHER.toLowerCase()} rejected` });
      assert.equal(control.status === "error" && control.error.kind, "failed");
    } finally {
      await run.end();
    }
  });

  it("a log line holding it transformed is withheld; control: another line is shown", async () => {
    const run = await holdingRun("strict");
    try {
      await run.callTool("wasi-probe.print", { text: `key=${reverse(SECRET)}` });
      await run.callTool("wasi-probe.print", { text: `key=${reverse(OTHER)}` });
      const lines = run.events.filter((e) => e.type === "log").map((e) => (e as { message: string }).message.trim());
      assert.deepEqual(lines, ["[a log line was withheld: it holds secret probe-token reversed (secrets.refuse_transformed_outputs)]", `key=${reverse(OTHER)}`]);
    } finally {
      await run.end();
    }
  });
});

test("control: without the setting a transformed output passes (redaction sees only the echo forms)", async () => {
  const run = await holdingRun("lenient");
  try {
    const passed = await run.callTool("wasi-probe.echo", { value: reverse(SECRET) });
    assert.deepEqual(passed.status === "ok" && passed.output, reverse(SECRET));
    const exact = await run.callTool("wasi-probe.echo", { value: `key ${SECRET}` });
    assert.deepEqual(exact.status === "ok" && exact.output, "key [REDACTED]");
  } finally {
    await run.end();
  }
});

test("the run's report says which ToolCalls read which secrets, and counts the refusal among its denials", async () => {
  const run = await holdingRun("strict");
  await run.callTool("wasi-probe.echo", { value: reverse(SECRET) });
  const report = await run.end();
  assert.deepEqual(report.secretsRead, [{ toolCallId: "call_1", tool: "wasi-probe.config", secrets: ["probe-token"] }]);
  assert.ok(report.denials.some((d) => d.capability === "secrets" && d.reason === "secret_in_output"), JSON.stringify(report.denials));
  assert.ok(!JSON.stringify(report).includes(SECRET));
  const stored = (await runtime.records.get(run.id))!.report as { secretsRead: unknown };
  assert.deepEqual(stored.secretsRead, report.secretsRead);
  // Control: a run that read no secret reports none.
  const none = await runtime.startRun({ agent: "strict" });
  await none.callTool("wasi-probe.echo", { value: "plain" });
  assert.deepEqual((await none.end()).secretsRead, []);
});

test("the approval a person is shown names the ToolCalls that read secrets; control: none when nothing read one", async () => {
  const run = await holdingRun("lenient");
  try {
    const waiting = await run.callTool("wasi-probe.write", { path: "a.txt", text: "x" });
    assert.equal(waiting.status, "approval_required", JSON.stringify(waiting));
    const approval = (await runtime.approvals.get(waiting.status === "approval_required" ? waiting.approval.id : ""))!;
    assert.deepEqual(approval.secretsRead, [{ toolCallId: "call_1", tool: "wasi-probe.config", secrets: ["probe-token"] }]);
    const shown = approvalBlock(approval, { now: Date.now() }).join("\n");
    assert.match(shown, /secrets:\s+read before this by wasi-probe\.config \(call_1\): probe-token/);
    assert.ok(!shown.includes(SECRET));
  } finally {
    await run.end();
  }
  const clean = await runtime.startRun({ agent: "lenient" });
  try {
    const waiting = await clean.callTool("wasi-probe.write", { path: "b.txt", text: "x" });
    const approval = (await runtime.approvals.get(waiting.status === "approval_required" ? waiting.approval.id : ""))!;
    assert.deepEqual(approval.secretsRead, []);
    assert.doesNotMatch(approvalBlock(approval, { now: Date.now() }).join("\n"), /secrets/);
  } finally {
    await clean.end();
  }
});

test("the operator's setting refuses for every agent; control: the same agent on a runtime without it", async () => {
  const strictRuntime = await testRuntime({ pluginDirs: [WASI_PROBE], refuseTransformedSecrets: true });
  try {
    const [previous, previousDispose] = [runtime, dispose];
    runtime = strictRuntime.runtime;
    await runtime.setSecret("probe-token", SECRET);
    await defineProbeAgent("lenient", { strict: false });
    const run = await holdingRun("lenient");
    const refused = await run.callTool("wasi-probe.echo", { value: SECRET.toUpperCase() });
    assert.equal(refused.status === "error" && refused.error.kind, "secret_in_output");
    await run.end();
    [runtime, dispose] = [previous, previousDispose];
    const control = await holdingRun("lenient");
    const passed = await control.callTool("wasi-probe.echo", { value: SECRET.toUpperCase() });
    assert.equal(passed.status, "ok");
    await control.end();
  } finally {
    await strictRuntime.dispose();
  }
});

test("an MCP server given a secret in its environment: its answers redacted, one holding it transformed refused, its calls reported", { skip: NO_SANDBOX, timeout: 120_000 }, async () => {
  const defsDir = await tempDir();
  const tools = join(defsDir, "tools.json");
  await writeFile(tools, JSON.stringify([{ name: "echo", description: "Echoes its text." }]));
  const spec = probeSpec({ env: { PROBE_TOKEN: { secret: "probe-token" } } });
  (spec.args as string[]).push(tools);
  (spec.read_only as string[]).push(defsDir);
  const lower = ["env", "echo"].map((tool) => ({ tool: `probe.${tool}`, to: "safe", acknowledged: true }));
  const agent = await defineMcpAgent(runtime, "mcp-strict", { probe: spec }, { approvals: { lower_risk: lower }, secrets: { refuse_transformed_outputs: true } });
  await acceptServer(runtime, agent, "probe");
  const run = await runtime.startRun({ agent: "mcp-strict" });
  const env = await run.callTool("probe.env", { name: "PROBE_TOKEN" });
  assert.deepEqual(env.status === "ok" && env.output, "[REDACTED]", "an exact echo is redacted");
  const refused = await run.callTool("probe.echo", { text: reverse(SECRET) });
  assert.equal(refused.status === "error" && refused.error.kind, "secret_in_output", JSON.stringify(refused));
  const records = (await runtime.audit.query({ runId: run.id, kind: "tool_call", limit: 100 })).records.filter((r) => r.toolCall?.id === refused.id);
  assert.deepEqual(records.map((r) => r.status), ["intent", "denied"]);
  const control = await run.callTool("probe.echo", { text: reverse(OTHER) });
  assert.deepEqual(control.status === "ok" && control.output, `echo:${reverse(OTHER)}`);
  const report = await run.end();
  assert.deepEqual(report.secretsRead.map((r) => [r.tool, r.secrets]), [["probe.env", ["probe-token"]], ["probe.echo", ["probe-token"]], ["probe.echo", ["probe-token"]]]);
});
