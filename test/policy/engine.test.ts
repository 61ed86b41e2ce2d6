import assert from "node:assert/strict";
import { test } from "node:test";
import { decideHostCall, toolRisk, type CallingTool, type PolicyLayers } from "../../runtime/policy/engine.js";
import { hostCallRequest, isDenial } from "../../runtime/policy/host-call-request.js";
import type { PluginManifest } from "../../runtime/plugins/manifest.js";

const plugin: PluginManifest = {
  name: "files",
  version: "0.1.0",
  description: "d",
  publisher: "p",
  format: "component",
  world: "files",
  source: "src/index.ts",
  capabilities: ["fs.read", "fs.write", "log"],
  tools: { read_file: { risk: "safe" }, write_file: { risk: "guarded" } },
};
const reader: CallingTool = { plugin, name: "read_file", capabilities: ["fs.read"] };
const writer: CallingTool = { plugin, name: "write_file", capabilities: ["fs.write"] };
const work = { guest: "/work", host: "/srv/work" };
const agentGrants = {
  "fs.read": { mounts: [{ ...work, mode: "ro" as const }], allow_sensitive: [] },
  "fs.write": { mounts: [{ ...work, mode: "rw" as const }], allow_sensitive: [] },
};
const base: PolicyLayers = { agent: { name: "a", grants: agentGrants } };
const fsCall = (fn: string, path: string) => {
  const request = hostCallRequest({ iface: "fs", fn, args: fn === "write" ? [path, new Uint8Array(1)] : [path] });
  if (isDenial(request)) throw new Error("unexpected denial");
  return request;
};

// The conjunction: every layer on its own, each deny row beside a control that passes.
const rows: Array<{ name: string; layers: PolicyLayers; tool: CallingTool; fn: string; path: string; expect: string }> = [
  { name: "control: agent grants the read", layers: base, tool: reader, fn: "read", path: "/work/a.txt", expect: "allow" },
  { name: "agent lacks the capability", layers: { agent: { name: "a", grants: { "fs.read": agentGrants["fs.read"] } } }, tool: writer, fn: "write", path: "/work/a.txt", expect: "not-granted" },
  { name: "control: agent grants the write", layers: base, tool: writer, fn: "write", path: "/work/a.txt", expect: "allow" },
  { name: "plugin manifest lacks the capability", layers: base, tool: { ...reader, plugin: { ...plugin, capabilities: ["log"] } }, fn: "read", path: "/work/a.txt", expect: "not-declared-by-plugin" },
  { name: "tool did not declare the capability", layers: base, tool: reader, fn: "write", path: "/work/a.txt", expect: "not-declared-by-tool" },
  { name: "path outside the agent's mount", layers: base, tool: reader, fn: "read", path: "/etc/passwd", expect: "outside-mount" },
  { name: "task narrowed the write away", layers: { ...base, task: { "fs.read": agentGrants["fs.read"] } }, tool: writer, fn: "write", path: "/work/a.txt", expect: "narrowed-by-task" },
  { name: "control: task keeps the read", layers: { ...base, task: { "fs.read": agentGrants["fs.read"] } }, tool: reader, fn: "read", path: "/work/a.txt", expect: "allow" },
  { name: "elevation restores what the task narrowed", layers: { ...base, task: { "fs.read": agentGrants["fs.read"] }, elevation: { "fs.write": agentGrants["fs.write"] } }, tool: writer, fn: "write", path: "/work/a.txt", expect: "allow" },
  { name: "elevation cannot pass the agent layer", layers: { agent: { name: "a", grants: { "fs.read": agentGrants["fs.read"] } }, task: {}, elevation: { "fs.write": agentGrants["fs.write"] } }, tool: writer, fn: "write", path: "/work/a.txt", expect: "not-granted" },
  { name: "a parent without the capability", layers: { ...base, parents: [{ name: "parent", grants: { "fs.read": agentGrants["fs.read"] } }] }, tool: writer, fn: "write", path: "/work/a.txt", expect: "not-granted-to-parent" },
  { name: "control: a parent with it", layers: { ...base, parents: [{ name: "parent", grants: agentGrants }] }, tool: writer, fn: "write", path: "/work/a.txt", expect: "allow" },
  { name: "sensitive name", layers: base, tool: reader, fn: "read", path: "/work/.env", expect: "sensitive-name" },
];

for (const row of rows) {
  test(`host-call gate: ${row.name}`, () => {
    const decision = decideHostCall(row.layers, row.tool, fsCall(row.fn, row.path));
    if (row.expect === "allow") assert.equal(decision.kind, "allow", JSON.stringify(decision));
    else {
      assert.equal(decision.kind, "deny", JSON.stringify(decision));
      assert.equal(decision.kind === "deny" && decision.denial.reason, row.expect);
    }
  });
}

test("an unknown host function is denied; control: a known one maps to its capability", () => {
  assert.ok(isDenial(hostCallRequest({ iface: "fs", fn: "chmod", args: ["/work/a"] })));
  assert.ok(isDenial(hostCallRequest({ iface: "net", fn: "connect", args: [] })));
  const known = hostCallRequest({ iface: "fs", fn: "listDir", args: ["/work"] });
  assert.ok(!isDenial(known) && known.capability === "fs.read");
});

const riskRows: Array<{ name: string; tool: CallingTool; override?: { to: "safe" | "guarded" | "unsafe"; acknowledged?: boolean }; risk: string; rule: string }> = [
  { name: "reads default to Safe", tool: reader, risk: "safe", rule: "capability-default" },
  { name: "writes default to Guarded", tool: writer, risk: "guarded", rule: "capability-default" },
  { name: "the agent raises a read", tool: reader, override: { to: "unsafe" }, risk: "unsafe", rule: "agent-raise" },
  { name: "a flagged lowering applies", tool: writer, override: { to: "safe", acknowledged: true }, risk: "safe", rule: "agent-lower" },
  { name: "an unflagged lowering is refused", tool: writer, override: { to: "safe" }, risk: "guarded", rule: "lowering-refused" },
  { name: "the plugin raises its tool", tool: { ...reader, plugin: { ...plugin, tools: { read_file: { risk: "unsafe" } } } }, risk: "unsafe", rule: "plugin-tool" },
];
for (const row of riskRows) {
  test(`risk gate: ${row.name}`, () => {
    const decided = toolRisk(row.tool, { agentOverride: row.override });
    assert.equal(decided.risk, row.risk);
    assert.equal(decided.rule, row.rule);
  });
}
