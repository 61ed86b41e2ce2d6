/**
 * A public typed-export component no one here wrote (wassette's get-weather-js, built unchanged
 * from test/fixtures/wassette-get-weather-js, provenance there) installed as a typed plugin: its
 * one export `get-weather: func(city: string) -> result<string, string>` becomes the tool
 * get_weather, and its WASI HTTP request hits the same policy: the host it asks for is not
 * granted, so the request is refused and audited, and the export's error case is the tool error.
 * A Guarded install of the same function waits for a person before anything runs. And wassette's
 * time-server-js (test/fixtures/wassette-time-server-js): an interface export reading WASI clocks.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { buildComponent } from "../../runtime/plugins/build.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { writePackage } from "../helpers/plugin-packages.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";

const WEATHER = join(PROJECT_ROOT, "test", "fixtures", "wassette-get-weather-js");
const TIME = join(PROJECT_ROOT, "test", "fixtures", "wassette-time-server-js");
let runtime: Runtime;
let dispose: () => Promise<void>;

before(async () => {
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 20_000 } }));
  const built = await buildComponent(WEATHER, { cacheDir: defaultBuildCacheDir() });
  const fixture = JSON.parse(built.manifestText) as Record<string, unknown>;
  const packages = await tempDir();
  for (const [name, risk] of [["weather", "safe"], ["weather-guarded", "guarded"]] as const) {
    // The example's own manifest, said to be typed; get_weather may use only http.fetch.
    const manifest = { ...fixture, name, contract: "typed", tools: { get_weather: { risk, capabilities: ["http.fetch"] } } };
    await runtime.installPlugin(await writePackage(packages, name, manifest, built.bytes));
  }
  // Its JS engine imports WASI http and filesystem whatever the script uses: the fixture's
  // manifest (log only) is refused for them, naming each; declared, the plugin installs, and its
  // one tool still may use none of them (its own capabilities are empty).
  await assert.rejects(runtime.installPlugin(TIME), /wasi:http\/outgoing-handler@[\d.]+: needs one of http\.fetch/);
  const time = await buildComponent(TIME, { cacheDir: defaultBuildCacheDir() });
  const declared = { ...(JSON.parse(time.manifestText) as Record<string, unknown>), capabilities: ["log", "http.fetch", "fs.read"], tools: { time_get_current_time: { risk: "safe", capabilities: [] } } };
  await runtime.installPlugin(await writePackage(packages, "time-server", declared, time.bytes));
});
after(() => dispose());

test("its typed export is a tool with a schema read from the binary", async () => {
  const installed = await runtime.installer.registry.get("weather");
  const tool = installed?.tools.find((t) => t.name === "get_weather");
  assert.deepEqual(tool?.inputSchema, { type: "object", properties: { city: { type: "string", description: "WIT string" } }, required: ["city"], additionalProperties: false });
  assert.deepEqual(tool?.capabilities, ["http.fetch"]);
});

test("an undeclared host is refused and audited; the export's error case is the tool error", async () => {
  // http.fetch is Guarded by default; acknowledged Safe here so the request itself is what is decided.
  const agent = await defineTestAgent(runtime, "weather-user", { plugins: ["weather"], lowerToSafe: ["weather.get_weather"], extraGrants: { "http.fetch": { hosts: ["api.example.test"] } } });
  const run = await runtime.startRun({ agent });
  try {
    const outcome = await run.callTool("weather.get_weather", { city: "Paris" });
    assert.equal(outcome.status, "error", JSON.stringify(outcome));
    const records = (await runtime.audit.query({ runId: run.id, kind: "host_call", limit: 100 })).records;
    const denied = records.filter((r) => r.status === "denied");
    assert.ok(denied.length >= 1, JSON.stringify(records));
    assert.equal(denied[0]!.denial?.capability, "http.fetch");
    assert.match(JSON.stringify(denied[0]!.args), /api\.openweathermap\.org/);
    // Control in the same run: bad input never reaches the guest (no new host call).
    const bad = await run.callTool("weather.get_weather", { town: "Paris" });
    assert.equal(bad.status, "error");
    assert.equal((await runtime.audit.query({ runId: run.id, kind: "host_call", limit: 100 })).records.length, records.length);
  } finally {
    await run.end();
  }
});

test("control: the same request to a granted host, its API key a named secret, is allowed and on record without the key", async () => {
  // Whether the host answers (this machine may have no network) is not the point: the policy lets it go.
  const key = "ow-key-from-the-secret-store-5e2a";
  await runtime.setSecret("openweather", key);
  await runtime.defineAgent({
    name: "weather-granted",
    description: "uses the public weather component with its API key from the secret store",
    model: { provider: "anthropic", id: "test-model" },
    system_prompt: "test",
    plugins: [{ name: "weather", version: "*", config: { OPENWEATHER_API_KEY: { secret: "openweather" } } }],
    grants: { log: {}, "http.fetch": { hosts: ["api.openweathermap.org"] } },
    approvals: { lower_risk: [{ tool: "weather.get_weather", to: "safe", acknowledged: true }] },
  });
  const agent = "weather-granted";
  const run = await runtime.startRun({ agent });
  try {
    await run.callTool("weather.get_weather", { city: "Paris" });
    const records = (await runtime.audit.query({ runId: run.id, kind: "host_call", limit: 100 })).records.filter((r) => r.hostCall?.proxy === "http");
    assert.ok(records.length >= 1, JSON.stringify(records));
    assert.ok(records.every((r) => r.decision === "allow"), JSON.stringify(records));
    assert.match(JSON.stringify(records[0]!.args), /api\.openweathermap\.org/);
    // The key reached the request (the guest read it through wasi:config/store), never the audit log.
    const all = (await runtime.audit.query({ runId: run.id, limit: 200 })).records;
    assert.ok(all.some((r) => r.hostCall?.proxy === "config" && r.status === "ok"), JSON.stringify(all));
    assert.ok(!JSON.stringify(all).includes(key));
  } finally {
    await run.end();
  }
});

test("a Guarded typed function waits for a person before its guest runs", async () => {
  const agent = await defineTestAgent(runtime, "weather-guarded-user", { plugins: ["weather-guarded"], extraGrants: { "http.fetch": { hosts: ["api.example.test"] } } });
  const run = await runtime.startRun({ agent });
  try {
    const outcome = await run.callTool("weather-guarded.get_weather", { city: "Paris" });
    assert.equal(outcome.status, "approval_required", JSON.stringify(outcome));
    assert.deepEqual((await runtime.audit.query({ runId: run.id, kind: "host_call", limit: 100 })).records, []);
  } finally {
    await run.end().catch(() => undefined);
  }
});

test("an interface export reading WASI clocks answers with the time", async () => {
  const agent = await defineTestAgent(runtime, "time-user", { plugins: ["time-server"] });
  const run = await runtime.startRun({ agent });
  try {
    const before = Date.now();
    const outcome = await run.callTool("time-server.time_get_current_time", {});
    assert.equal(outcome.status, "ok", JSON.stringify(outcome));
    const at = Date.parse(String(outcome.status === "ok" ? outcome.output : ""));
    assert.ok(Number.isFinite(at) && Math.abs(at - before) < 60_000, JSON.stringify(outcome));
    const extra = await run.callTool("time-server.time_get_current_time", { zone: "UTC" });
    assert.equal(extra.status, "error");
  } finally {
    await run.end();
  }
});
