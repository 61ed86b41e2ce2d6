/** The agent manifest's risk setting for one tool, in the shape `effectiveRisk` takes. */
import type { RiskOverride } from "../policy/catalogue/index.js";
import type { AgentManifest } from "./schema.js";

/** `tool` is `plugin.tool`, e.g. `files.write_file`. */
export function agentRiskOverride(m: AgentManifest, tool: string): RiskOverride | undefined {
  const raised = m.approvals.raise_risk.find((o) => o.tool === tool);
  if (raised !== undefined) return { to: raised.to };
  const lowered = m.approvals.lower_risk.find((o) => o.tool === tool);
  return lowered === undefined ? undefined : { to: lowered.to, acknowledged: lowered.acknowledged };
}
