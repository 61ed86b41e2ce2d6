import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultRisks, effectiveRisk } from "../../../runtime/policy/catalogue/index.js";
import type { RiskDecision, RiskInput } from "../../../runtime/policy/catalogue/index.js";

// [what, input, expected decision]
const ROWS: [string, RiskInput, Pick<RiskDecision, "risk" | "rule">][] = [
  ["no capabilities, nothing declared", { capabilityDefaults: {} }, { risk: "safe", rule: "capability-default" }],
  ["a read's default", { capabilityDefaults: defaultRisks(["fs.read"]) }, { risk: "safe", rule: "capability-default" }],
  ["the highest default wins", { capabilityDefaults: defaultRisks(["fs.read", "fs.write", "log"]) }, { risk: "guarded", rule: "capability-default" }],
  ["shell is unsafe", { capabilityDefaults: defaultRisks(["shell.exec", "fs.read"]) }, { risk: "unsafe", rule: "capability-default" }],
  ["an unknown capability is unsafe", { capabilityDefaults: defaultRisks(["fs.teleport"]) }, { risk: "unsafe", rule: "capability-default" }],
  ["plugin raises", { capabilityDefaults: defaultRisks(["fs.read"]), pluginToolRisk: "guarded" }, { risk: "guarded", rule: "plugin-tool" }],
  ["plugin cannot lower", { capabilityDefaults: defaultRisks(["fs.write"]), pluginToolRisk: "safe" }, { risk: "guarded", rule: "capability-default" }],
  ["agent raises", { capabilityDefaults: defaultRisks(["fs.read"]), pluginToolRisk: "safe", agentOverride: { to: "unsafe" } }, { risk: "unsafe", rule: "agent-raise" }],
  ["agent raises above a plugin raise", { capabilityDefaults: defaultRisks(["fs.read"]), pluginToolRisk: "guarded", agentOverride: { to: "unsafe" } }, { risk: "unsafe", rule: "agent-raise" }],
  ["flagged lowering is accepted", { capabilityDefaults: defaultRisks(["fs.write"]), agentOverride: { to: "safe", acknowledged: true } }, { risk: "safe", rule: "agent-lower" }],
  ["flagged lowering of a plugin raise", { capabilityDefaults: defaultRisks(["fs.read"]), pluginToolRisk: "unsafe", agentOverride: { to: "guarded", acknowledged: true } }, { risk: "guarded", rule: "agent-lower" }],
  ["unflagged lowering is refused", { capabilityDefaults: defaultRisks(["fs.write"]), agentOverride: { to: "safe" } }, { risk: "guarded", rule: "lowering-refused" }],
  ["lowering flagged false is refused", { capabilityDefaults: defaultRisks(["shell.exec"]), agentOverride: { to: "guarded", acknowledged: false } }, { risk: "unsafe", rule: "lowering-refused" }],
  ["an override equal to the declared risk changes nothing", { capabilityDefaults: defaultRisks(["fs.write"]), agentOverride: { to: "guarded" } }, { risk: "guarded", rule: "capability-default" }],
];

for (const [what, input, expected] of ROWS) {
  test(`effectiveRisk: ${what} → ${expected.risk} (${expected.rule})`, () => {
    const decision = effectiveRisk(input);
    assert.deepEqual({ risk: decision.risk, rule: decision.rule }, expected);
  });
}

test("effectiveRisk names its source: the capability that set the default; control: the plugin when it raised", () => {
  assert.equal(effectiveRisk({ capabilityDefaults: defaultRisks(["log", "fs.write", "fs.read"]) }).source, "fs.write");
  assert.equal(effectiveRisk({ capabilityDefaults: defaultRisks(["log"]), pluginToolRisk: "unsafe" }).source, "plugin");
  assert.match(effectiveRisk({ capabilityDefaults: defaultRisks(["fs.write"]), agentOverride: { to: "safe" } }).source, /not acknowledged.*fs\.write/);
});
