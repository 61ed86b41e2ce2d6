/** The manifest's risk settings, fed to effectiveRisk the way the policy gate will. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { agentRiskOverride } from "../../runtime/agents/index.js";
import { defaultRisks, effectiveRisk } from "../../runtime/policy/catalogue/index.js";
import { baseManifest, dataDir, parseObject, withField } from "./_fixtures.js";

test("agentRiskOverride: raise and acknowledged lowering reach effectiveRisk; control: a tool without an override", async (t) => {
  const d = await dataDir(t);
  const m = withField(baseManifest(), ["approvals"], {
    raise_risk: [{ tool: "files.read_file", to: "guarded" }],
    lower_risk: [{ tool: "files.write_file", to: "safe", acknowledged: true }],
  });
  const { manifest } = parseObject(m, d.base);
  const decide = (tool: string, capabilities: string[], plugin: "safe" | "guarded") =>
    effectiveRisk({ capabilityDefaults: defaultRisks(capabilities), pluginToolRisk: plugin, agentOverride: agentRiskOverride(manifest, tool) });
  assert.deepEqual(decide("files.read_file", ["fs.read"], "safe"), { risk: "guarded", rule: "agent-raise", source: "agent" });
  assert.deepEqual(decide("files.write_file", ["fs.write"], "guarded"), { risk: "safe", rule: "agent-lower", source: "agent" });
  assert.deepEqual(decide("files.edit_file", ["fs.write"], "guarded"), { risk: "guarded", rule: "capability-default", source: "fs.write" });
});
