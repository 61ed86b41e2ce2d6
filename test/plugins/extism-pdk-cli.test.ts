/**
 * Through the shipped CLI: an Extism plugin using the Rust PDK's logging writes to the run's log
 * at the level configured (`CLAWHIVE_EXTISM_LOG_LEVEL`, `sandbox.extism_log_level`), and a
 * hyper-mcp ABI v2 plugin installs and answers as a tool. A bad level is refused, naming it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { BIN, cliPlace, clawhiveIn, type CliPlace } from "../cli/fixtures.js";
import { hyperMcpV2Wat, pdkLogWat, pdkPackage } from "../helpers/extism-pdk-modules.js";

let place: CliPlace;

const AGENT = `name: pdk
description: Uses Extism plugins built by third-party toolchains.
model: { provider: anthropic, id: none }
system_prompt: Not used; tools are called directly.
plugins:
  - { name: pdk-log, version: "*" }
  - { name: v2-time, version: "*" }
grants:
  log: {}
`;

/** The CLI on the place's data dir with `env` added (no other clawhive variable passes). */
function clawhive(env: Record<string, string>, ...args: string[]) {
  const clean: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(clean)) if (name.startsWith("CLAWHIVE_")) delete clean[name];
  const result = spawnSync(process.execPath, [BIN, ...args, "--data-dir", place.data], { encoding: "utf8", timeout: 300_000, env: { ...clean, ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const logLines = (output: string) => output.split("\n").filter((l) => l.startsWith("log "));

before(async () => {
  place = await cliPlace("clawhive-pdk-cli-");
  await writeFile(join(place.agents, "pdk.yaml"), AGENT);
  for (const [name, wat, tools] of [["pdk-log", pdkLogWat(), ["macro", "raw", "level"]], ["v2-time", hyperMcpV2Wat(), ["get_time", "echo_request"]]] as const) {
    const pkg = await pdkPackage(name, wat, tools, name === "pdk-log" ? ["log"] : [], await mkdtemp(join(place.root, `${name}-`)));
    const installed = clawhiveIn(place, "plugin", "install", pkg.dir);
    assert.equal(installed.code, 0, installed.stderr);
  }
});
after(() => rm(place.root, { recursive: true, force: true }));

test("the Rust PDK's log lines reach the run's log from the configured level up; get_log_level tells the guest", () => {
  const rows: Array<{ env: Record<string, string>; level: string; lines: string[] }> = [
    { env: {}, level: "2", lines: ["info: info line", "warn: warn line", "error: error line"] },
    { env: { CLAWHIVE_EXTISM_LOG_LEVEL: "trace" }, level: "0", lines: ["debug: trace line", "debug: debug line", "info: info line", "warn: warn line", "error: error line"] },
    { env: { CLAWHIVE_EXTISM_LOG_LEVEL: "error" }, level: "4", lines: ["error: error line"] },
    { env: { CLAWHIVE_EXTISM_LOG_LEVEL: "silent" }, level: "2147483647", lines: [] },
  ];
  for (const row of rows) {
    const result = clawhive(row.env, "run", "pdk", "logs", "--call", 'pdk-log.level={"input":""}', "--call", 'pdk-log.macro={"input":""}', "--call", 'pdk-log.raw={"input":""}', "--agents", place.agents);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, new RegExp(`pdk-log\\.level: ${row.level}\\b`), JSON.stringify(row.env));
    const expected = row.lines.map((l) => `log     pdk-log ${l}`);
    // macro (the PDK's own filter) and raw (every level sent: the host filters) log the same lines.
    assert.deepEqual(logLines(result.stdout), [...expected, ...expected], JSON.stringify(row.env));
  }
});

test("a level that is not one is refused before anything runs, naming the variable", () => {
  const result = clawhive({ CLAWHIVE_EXTISM_LOG_LEVEL: "verbose" }, "call", "pdk-log.level", '{"input":""}', "--agent", "pdk", "--agents", place.agents);
  assert.equal(result.code, 2, result.stdout + result.stderr);
  assert.match(result.stderr, /env CLAWHIVE_EXTISM_LOG_LEVEL: expected trace, debug, info, warn, error, silent/);
});

test("a hyper-mcp v2 plugin's tools are listed and called through the CLI", () => {
  const info = clawhive({}, "plugin", "info", "v2-time", "--json");
  assert.equal(info.code, 0, info.stderr);
  const tools = (JSON.parse(info.stdout) as { tools: Array<{ name: string; description: string }> }).tools;
  assert.deepEqual(tools.map((t) => [t.name, t.description]), [["get_time", "Returns the current time in a timezone."], ["echo_request", "Echo the request"]]);
  const called = clawhive({}, "call", "v2-time.echo_request", '{"text":"hello"}', "--agent", "pdk", "--agents", place.agents, "--json");
  assert.equal(called.code, 0, called.stdout + called.stderr);
  assert.deepEqual((JSON.parse(called.stdout) as { output: unknown }).output, { request: { name: "echo_request", arguments: { text: "hello" } }, context: { id: 1, _meta: {} } });
  const refused = clawhive({}, "call", "v2-time.echo_request", '{"text":7}', "--agent", "pdk", "--agents", place.agents);
  assert.equal(refused.code, 1, refused.stdout + refused.stderr);
});
