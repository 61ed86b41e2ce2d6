/**
 * Config a guest reads (`wasi:config/store` of a component, Extism's `config_get` of a wasip1
 * plugin) comes from the plugin's own defaults and the agent's grant to the plugin
 * (`plugins[].config`: literals or named secrets), never from the runtime's environment. A table
 * of keys, each denial beside a control that passes; the audit records keys and secret names,
 * never a value.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { buildCPlugin } from "../helpers/c-plugin.js";
import type { ExtismPackage } from "../helpers/extism-probe.js";
import { testRuntime } from "../helpers/runtime.js";

const SECRET = "s3cr3t-config-value-9f1c";
const ENV_ONLY = "from-the-runtime-environment-77aa";
let runtime: Runtime;
let dispose: () => Promise<void>;
let pkg: ExtismPackage;

before(async () => {
  // Names the guest will ask for, set in the runtime's own environment: never served.
  process.env.api_token = ENV_ONLY;
  process.env.PROCESS_ONLY = ENV_ONLY;
  pkg = await buildCPlugin();
  ({ runtime, dispose } = await testRuntime({ pluginDirs: [join(PROJECT_ROOT, "test", "plugins", "wasi-probe"), pkg.dir], sandbox: { callTimeoutMs: 20_000 } }));
  await runtime.setSecret("probe-token", SECRET);
  await runtime.setSecret("c-greeting", "hola-from-a-secret");
  await define("config-granted", {
    "wasi-probe": { api_token: { secret: "probe-token" }, mode: "fast", region: "us-east", broken: { secret: "no-such-secret" } },
    "c-notes": { greeting: { secret: "c-greeting" } },
  });
  await define("config-bare", {});
});
after(async () => {
  delete process.env.api_token;
  delete process.env.PROCESS_ONLY;
  await dispose?.();
  await rm(pkg.dir, { recursive: true, force: true });
});

async function define(name: string, config: Record<string, Record<string, unknown>>): Promise<void> {
  await runtime.defineAgent({
    name,
    description: `test agent ${name}`,
    model: { provider: "anthropic", id: "test-model" },
    system_prompt: "test",
    plugins: ["wasi-probe", "c-notes"].map((p) => ({ name: p, version: "*", ...(config[p] ? { config: config[p] } : {}) })),
    grants: { log: {} },
    // The C tool's describe gives no capabilities, so it takes its plugin's (http.fetch: Guarded).
    approvals: { lower_risk: [{ tool: "c-notes.greet", to: "safe", acknowledged: true }] },
  });
}

async function configCall(agent: string, tool: string, args: Record<string, unknown>) {
  const run = await runtime.startRun({ agent });
  try {
    const outcome = await run.callTool(tool, args);
    const records = (await runtime.audit.query({ runId: run.id, kind: "host_call", limit: 100 })).records.filter((r) => r.hostCall?.proxy === "config");
    return { outcome, records, output: outcome.status === "ok" ? (typeof outcome.output === "string" ? outcome.output : JSON.stringify(outcome.output)) : JSON.stringify(outcome) };
  } finally {
    await run.end();
  }
}

function argsOf(record: { args: unknown }): { key?: string; secrets?: string[] } {
  return (typeof record.args === "string" ? JSON.parse(record.args) : record.args) as { key?: string; secrets?: string[] };
}

describe("wasi:config/store keys, each beside a control", () => {
  const table: Array<{ name: string; agent: string; key: string; value: string | null; audited: "ok" | "denied" | "error"; secret?: string }> = [
    { name: "control: a literal the agent grants", agent: "config-granted", key: "mode", value: "fast", audited: "ok" },
    // The guest reads the secret; its result shows it redacted (the whole value replaced: it was the secret).
    { name: "control: a named secret the agent grants (read, shown redacted)", agent: "config-granted", key: "api_token", value: "[REDACTED]", audited: "ok", secret: "probe-token" },
    { name: "the same key, not granted by this agent: absent (the environment has it)", agent: "config-bare", key: "api_token", value: null, audited: "denied" },
    { name: "a key only the runtime's environment holds: absent", agent: "config-granted", key: "PROCESS_ONLY", value: null, audited: "denied" },
    { name: "control: the plugin's own default (plugin.json)", agent: "config-bare", key: "region", value: "eu-west", audited: "ok" },
    { name: "the agent's grant wins over the plugin's default", agent: "config-granted", key: "region", value: "us-east", audited: "ok" },
  ];
  for (const row of table) {
    it(row.name, async () => {
      const { outcome, records, output } = await configCall(row.agent, "wasi-probe.config", { key: row.key });
      assert.equal(outcome.status, "ok", output);
      assert.deepEqual(JSON.parse(output), { value: row.value });
      // An allowed read is its intent and its outcome; a refused one, its denial.
      assert.deepEqual(records.map((r) => r.status), row.audited === "denied" ? ["denied"] : ["intent", row.audited], JSON.stringify(records));
      assert.equal(argsOf(records[0]!).key, row.key);
      if (row.secret) assert.deepEqual(argsOf(records[0]!).secrets, [row.secret]);
      assert.ok(!JSON.stringify(records).includes(SECRET) && !JSON.stringify(records).includes(ENV_ONLY));
    });
  }

  it("a granted secret missing from the store is the guest's error, never another value", async () => {
    const { outcome, records } = await configCall("config-granted", "wasi-probe.config", { key: "broken" });
    assert.equal(outcome.status, "error");
    assert.match(JSON.stringify(outcome), /upstream.*secret no-such-secret could not be read/);
    assert.deepEqual(records.map((r) => r.status), ["intent", "error"]);
    assert.deepEqual(argsOf(records[0]!).secrets, ["no-such-secret"]);
  });

  it("get-all lists what the run serves: the plugin's defaults and the agent's grant, nothing of the environment", async () => {
    const granted = await configCall("config-granted", "wasi-probe.config", {});
    assert.equal(granted.outcome.status, "error", "one granted secret is missing: the whole read fails");
    const bare = await configCall("config-bare", "wasi-probe.config", {});
    assert.deepEqual(JSON.parse(bare.output), { all: [["region", "eu-west"]] });
    assert.ok(!bare.output.includes(ENV_ONLY));
  });
});

test("Extism config_get: a named secret granted to the plugin, else its default; never the environment", async () => {
  process.env.greeting = ENV_ONLY;
  try {
    const granted = await configCall("config-granted", "c-notes.greet", {});
    assert.equal(granted.outcome.status, "ok", granted.output);
    // The guest read it; what it returns shows it redacted.
    assert.match(granted.output, /\[REDACTED\]/);
    assert.ok(!granted.output.includes("hola-from-a-secret"), granted.output);
    assert.deepEqual(argsOf(granted.records[0]!).secrets, ["c-greeting"]);
    // Control: an agent granting nothing gets the plugin's own default (plugin.json), not the environment's.
    const bare = await configCall("config-bare", "c-notes.greet", {});
    assert.match(bare.output, /bonjour/);
    assert.ok(!bare.output.includes(ENV_ONLY));
  } finally {
    delete process.env.greeting;
  }
});

describe("a secret the instance read is redacted from what it shows, each beside a control", () => {
  const forms = {
    "as read": SECRET,
    base64: Buffer.from(SECRET).toString("base64"),
    hex: Buffer.from(SECRET).toString("hex"),
    "percent-encoded": encodeURIComponent(`${SECRET}/x`),
  };
  const logged = async (readFirst: boolean) => {
    const run = await runtime.startRun({ agent: "config-granted" });
    try {
      if (readFirst) {
        const read = await run.callTool("wasi-probe.config", { key: "api_token" });
        assert.deepEqual(read.status === "ok" ? read.output : read, { value: "[REDACTED]" });
      }
      // A later ToolCall of the same instance: it may have kept what it read.
      for (const [name, form] of Object.entries(forms)) assert.equal((await run.callTool("wasi-probe.print", { text: `${name}: ${form}` })).status, "ok");
      return run.events.filter((e) => e.type === "log").map((e) => (e as { message: string }).message);
    } finally {
      await run.end();
    }
  };
  it("its log lines, after it read the secret: every form redacted", async () => {
    const lines = await logged(true);
    assert.equal(lines.length, Object.keys(forms).length, JSON.stringify(lines));
    for (const line of lines) {
      assert.match(line, /\[REDACTED\]/, line);
      for (const form of Object.values(forms)) assert.ok(!line.includes(form), line);
    }
  });
  it("control: an instance that read no secret: its lines as written", async () => {
    const lines = await logged(false);
    assert.deepEqual(lines.map((l) => l.trim()), Object.entries(forms).map(([name, form]) => `${name}: ${form}`));
  });
  it("control: a literal config value is no secret: shown as it is", async () => {
    const { output } = await configCall("config-granted", "wasi-probe.config", { key: "mode" });
    assert.deepEqual(JSON.parse(output), { value: "fast" });
  });
});

test("an agent manifest naming a config value neither a string nor {secret} is refused, naming the field", async () => {
  await assert.rejects(
    runtime.defineAgent({
      name: "config-bad",
      description: "bad",
      model: { provider: "anthropic", id: "test-model" },
      system_prompt: "test",
      plugins: [{ name: "wasi-probe", version: "*", config: { api_token: { env: "HOME" } } }],
      grants: {},
    } as never),
    /config/,
  );
});
