/**
 * A Guarded call whose argument names a resource the policy refuses (a URL, a path, a
 * schedule's agent) is refused before a person is asked; a resource the policy allows still
 * waits for the person. Each deny row has a control beside it.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { parsePluginManifest } from "../../runtime/plugins/manifest.js";
import { FILES_PLUGIN, tempDir, testRuntime } from "../helpers/runtime.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;

before(async () => {
  work = await tempDir();
  const plugin = (name: string) => join(PROJECT_ROOT, "plugins", name);
  ({ runtime, dispose } = await testRuntime({ pluginDirs: [FILES_PLUGIN, plugin("web"), plugin("schedule")], sandbox: { callTimeoutMs: 5_000 } }));
  const base = { description: "x", model: { provider: "anthropic", id: "m" }, system_prompt: "x" };
  await runtime.defineAgent({
    name: "doer", ...base,
    plugins: [{ name: "files", version: "*" }, { name: "web", version: "*" }, { name: "schedule", version: "*" }],
    grants: {
      "fs.read": { mounts: [{ guest: "/work", host: work }] },
      "fs.write": { mounts: [{ guest: "/work", host: work, mode: "rw" }] },
      "http.fetch": { schemes: ["https"], hosts: ["api.example.com"], methods: ["GET"] },
      schedule: { max_schedules: 2, agents: ["doer"] },
    },
  });
});
after(async () => {
  await dispose();
  await rm(work, { recursive: true, force: true });
});

const rows: Array<[string, string, Record<string, unknown>, string | null]> = [
  ["a URL on a host not granted", "web.fetch_page", { url: "https://evil.example/steal" }, "host-not-allowed"],
  ["a URL spelled to look granted", "web.fetch_page", { url: "https://api.example.com.evil.example/" }, "host-not-allowed"],
  ["a URL with a scheme not granted", "web.fetch_page", { url: "http://api.example.com/" }, "scheme-not-allowed"],
  ["a URL that is no URL", "web.fetch_page", { url: "not a url" }, "invalid-input"],
  ["a granted URL (control)", "web.fetch_page", { url: "https://api.example.com/v1/items" }, null],
  ["a path outside the mount", "files.write_file", { path: "/etc/cron.d/x", content: "x" }, "outside-mount"],
  ["a path escaping the mount with ..", "files.write_file", { path: "/work/../etc/x", content: "x" }, "outside-mount"],
  ["an edit outside the mount", "files.edit_file", { path: "/home/u/.bashrc", old_text: "a", new_text: "b" }, "outside-mount"],
  ["a path inside the mount (control)", "files.write_file", { path: "/work/notes.md", content: "x" }, null],
  ["a relative path (decided at the host call; control)", "files.write_file", { path: "notes.md", content: "x" }, null],
  ["a schedule for an agent not granted", "schedule.create_schedule", { agent: "payroll", task: "t", at: "2099-01-01T00:00:00Z" }, "agent-not-allowed"],
  ["a schedule for the granted agent (control)", "schedule.create_schedule", { agent: "doer", task: "t", at: "2099-01-01T00:00:00Z" }, null],
];

for (const [label, tool, input, reason] of rows) {
  test(`${tool} with ${label}: ${reason === null ? "waits for a person" : `refused before anyone is asked (${reason})`}`, async () => {
    const run = await runtime.startRun({ agent: "doer" });
    const outcome = await run.callTool(tool, input);
    const pending = await runtime.approvals.list({ runId: run.id });
    if (reason === null) {
      assert.equal(outcome.status, "approval_required", JSON.stringify(outcome));
      assert.equal(pending.length, 1);
    } else {
      assert.equal(outcome.status, "error", JSON.stringify(outcome));
      const denial = (outcome as { error: { denial?: { reason: string } } }).error.denial;
      assert.equal(denial?.reason, reason, JSON.stringify(outcome));
      assert.deepEqual(pending, [], "nobody was asked");
      const { records } = await runtime.audit.query({ runId: run.id, kind: "tool_call", status: "denied", limit: 10 });
      assert.deepEqual(records.map((r) => r.denial?.reason), [reason]);
    }
    await run.end();
  });
}

const manifest = (tools: Record<string, unknown>, capabilities = ["http.fetch"]) =>
  JSON.stringify({ name: "x", version: "1.0.0", description: "d", publisher: "p", capabilities, tools });
const manifests: Array<[string, string, RegExp | null]> = [
  ["resource_args naming a declared capability (control)", manifest({ get: { risk: "guarded", resource_args: { endpoint: "http.fetch" } } }), null],
  ["resource_args naming a capability the plugin does not declare", manifest({ get: { risk: "guarded", resource_args: { path: "fs.write" } } }), /each capability must be one the plugin declares/],
  ["resource_args naming a capability no argument can name", manifest({ get: { risk: "guarded", resource_args: { x: "log" } } }, ["log"]), /expected one of http\.fetch/],
  ["resource_args with a bad argument name", manifest({ get: { risk: "guarded", resource_args: { "a.b": "http.fetch" } } }), /expected an argument name/],
];
for (const [label, text, error] of manifests) {
  test(`plugin manifest: ${label}`, () => {
    if (error === null) assert.deepEqual(parsePluginManifest(text, "plugin.json").tools.get?.resource_args, { endpoint: "http.fetch" });
    else assert.throws(() => parsePluginManifest(text, "plugin.json"), error);
  });
}
