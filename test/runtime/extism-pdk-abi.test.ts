/**
 * Extism plugins as third-party toolchains build them, in a whole runtime: the Rust PDK's
 * logging (`get_log_level`, `log_trace` … `log_error`) goes to the run's log at the configured
 * level, lines below it never leave the worker; and hyper-mcp's plugin ABI v2 (`list_tools`,
 * `call_tool`) is listed and called as clawhive tools. Modules are WAT (test/helpers).
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { Runtime, ToolCallOutcome } from "../../runtime/index.js";
import type { ExtismLogLevel } from "../../runtime/plugins/extism-abi.js";
import { hyperMcpV2Wat, pdkLevelOnlyWat, pdkLogWat, pdkPackage, V2_TOOLS } from "../helpers/extism-pdk-modules.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";

const output = (outcome: ToolCallOutcome): unknown => {
  assert.equal(outcome.status, "ok", JSON.stringify(outcome));
  return (outcome as Extract<ToolCallOutcome, { status: "ok" }>).output;
};

/** A runtime at `level` with the log module installed (and the get_log_level-only one). */
async function logRuntime(level: ExtismLogLevel | "silent" | undefined) {
  const made = await testRuntime({ sandbox: { callTimeoutMs: 10_000, ...(level === undefined ? {} : { extismLogLevel: level }) } });
  const dir = await tempDir("clawhive-pdk-pkg-");
  await made.runtime.installPlugin((await pdkPackage("pdk-log", pdkLogWat(), ["macro", "raw", "level"], ["log"], dir)).dir);
  const quiet = await tempDir("clawhive-pdk-pkg-");
  await made.runtime.installPlugin((await pdkPackage("pdk-quiet", pdkLevelOnlyWat(), ["level"], [], quiet)).dir);
  return { ...made, dirs: [dir, quiet] };
}

/** Calls `tool` in a fresh run; answers its output, the run's log lines and its log host calls on record (their intents). */
async function logged(runtime: Runtime, agent: string, tool: string) {
  const run = await runtime.startRun({ agent });
  const result = output(await run.callTool(tool, { input: "" }));
  const lines = run.events.flatMap((e) => (e.type === "log" ? [`${e.level}: ${e.message}`] : []));
  await run.end();
  const records = (await runtime.audit.query({ runId: run.id, limit: 100 })).records.filter((r) => r.kind === "host_call" && r.hostCall?.proxy === "log" && r.status === "intent");
  return { result, lines, records };
}

const rows: Array<{ level: ExtismLogLevel | "silent" | undefined; integer: string; kept: string[] }> = [
  { level: undefined, integer: "2", kept: ["info: info line", "warn: warn line", "error: error line"] },
  { level: "trace", integer: "0", kept: ["debug: trace line", "debug: debug line", "info: info line", "warn: warn line", "error: error line"] },
  { level: "warn", integer: "3", kept: ["warn: warn line", "error: error line"] },
  { level: "silent", integer: "2147483647", kept: [] },
];

for (const row of rows) {
  describe(`Rust PDK logging at ${row.level ?? "the default level (info)"}`, () => {
    let made: Awaited<ReturnType<typeof logRuntime>>;
    let agent: string;
    before(async () => {
      made = await logRuntime(row.level);
      agent = await defineTestAgent(made.runtime, "logger", { plugins: ["pdk-log", "pdk-quiet"] });
    });
    after(async () => {
      await made.dispose();
      for (const dir of made.dirs) await rm(dir, { recursive: true, force: true });
    });

    it("get_log_level answers the configured level as the PDK's integer", async () => {
      assert.equal(String((await logged(made.runtime, agent, "pdk-log.level")).result), row.integer);
    });
    it("the PDK's log! macro sends only lines at or above it; each kept line is in the run's log and on record", async () => {
      const { result, lines, records } = await logged(made.runtime, agent, "pdk-log.macro");
      assert.equal(result, "done");
      assert.deepEqual(lines, row.kept);
      assert.equal(records.length, row.kept.length);
    });
    it("a line sent below the level anyway is dropped before any host call", async () => {
      const { lines, records } = await logged(made.runtime, agent, "pdk-log.raw");
      assert.deepEqual(lines, row.kept);
      assert.equal(records.length, row.kept.length);
    });
    it("a plugin that does not declare log is told logging is off", async () => {
      assert.equal(String((await logged(made.runtime, agent, "pdk-quiet.level")).result), "2147483647");
    });
  });
}

describe("hyper-mcp plugin ABI v2 (list_tools, call_tool)", () => {
  let made: Awaited<ReturnType<typeof testRuntime>>;
  before(async () => {
    made = await testRuntime({ sandbox: { callTimeoutMs: 10_000 } });
  });
  after(() => made.dispose());

  it("list_tools gives the tools: schema, description (else the title), plugin.json's capabilities and risk", async () => {
    const pkg = await pdkPackage("v2-time", hyperMcpV2Wat(), ["get_time", "echo_request"], [], await tempDir("clawhive-v2-"));
    try {
      await made.runtime.installPlugin(pkg.dir);
    } finally {
      await rm(pkg.dir, { recursive: true, force: true });
    }
    const tools = made.runtime.tools().filter((t) => t.plugin === "v2-time");
    assert.deepEqual(
      tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, capabilities: t.capabilities, risk: t.risk })),
      V2_TOOLS.tools.map((t) => ({ name: t.name, description: t.description ?? t.title, inputSchema: t.inputSchema, capabilities: [], risk: "safe" })),
    );
  });

  it("call_tool gets {request: {name, arguments}, context: {id, _meta}} and its CallToolResult is the tool's result", async () => {
    const agent = await defineTestAgent(made.runtime, "v2", { plugins: ["v2-time"] });
    const run = await made.runtime.startRun({ agent });
    try {
      const first = output(await run.callTool("v2-time.echo_request", { text: "hi \"there\"" }));
      const second = output(await run.callTool("v2-time.get_time", { timezone: "Europe/Paris" }));
      const parse = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value) as { request: unknown; context: { id: unknown; _meta: unknown } };
      assert.deepEqual(parse(first).request, { name: "echo_request", arguments: { text: 'hi "there"' } });
      assert.deepEqual(parse(second).request, { name: "get_time", arguments: { timezone: "Europe/Paris" } });
      assert.deepEqual(parse(second).context._meta, {});
      assert.equal(typeof parse(first).context.id, "number");
      // Input the tool's schema refuses never reaches the guest.
      assert.equal((await run.callTool("v2-time.echo_request", { text: 3 })).status, "error");
    } finally {
      await run.end();
    }
  });

  it("a module with list_tools but no call_tool is refused at install, naming the export (control: the whole ABI installs above)", async () => {
    const pkg = await pdkPackage("v2-half", hyperMcpV2Wat({ exports: { callTool: false } }), ["get_time", "echo_request"], [], await tempDir("clawhive-v2-"));
    try {
      await assert.rejects(made.runtime.installPlugin(pkg.dir), (e: Error & { code?: string }) => e.code === "imports_not_declared" && /export call_tool: missing \(a plugin of hyper-mcp's ABI v2/.test(e.message));
    } finally {
      await rm(pkg.dir, { recursive: true, force: true });
    }
  });
});
