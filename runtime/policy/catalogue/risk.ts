/**
 * A tool's effective risk (DESIGN: Policy): the highest of what is declared — the defaults of
 * the capabilities in play, the plugin's per-tool risk, the agent's raise — unless the agent
 * manifest lowers it with an explicit, acknowledged override. An override without the flag is
 * refused, and the result says so, so the operator sees the attempt rather than a silent no-op.
 */
import type { Risk } from "../../plugins/manifest.js";

const RANK: Readonly<Record<Risk, number>> = { safe: 0, guarded: 1, unsafe: 2 };

export function riskAbove(a: Risk, b: Risk): boolean {
  return RANK[a] > RANK[b];
}

export function maxRisk(risks: readonly Risk[]): Risk {
  return risks.reduce<Risk>((m, r) => (riskAbove(r, m) ? r : m), "safe");
}

/** The agent manifest's setting for one tool (`approvals.raise_risk` / `lower_risk`). */
export interface RiskOverride {
  to: Risk;
  /** Must be `true` for a lowering to take effect. */
  acknowledged?: boolean | undefined;
}

export interface RiskInput {
  /** Default risk of each capability in play, by name (see `defaultRisks`). */
  capabilityDefaults: Readonly<Record<string, Risk>>;
  pluginToolRisk?: Risk | undefined;
  agentOverride?: RiskOverride | undefined;
}

export type RiskRule = "capability-default" | "plugin-tool" | "agent-raise" | "agent-lower" | "lowering-refused";

export interface RiskDecision {
  risk: Risk;
  /** Which rule decided `risk`. */
  rule: RiskRule;
  /** What the rule looked at, for people: a capability name, `plugin`, `agent`. */
  source: string;
}

export function effectiveRisk(input: RiskInput): RiskDecision {
  let decided: RiskDecision = { risk: "safe", rule: "capability-default", source: "no capabilities" };
  for (const [capability, risk] of Object.entries(input.capabilityDefaults)) {
    if (decided.source === "no capabilities" || riskAbove(risk, decided.risk)) {
      decided = { risk, rule: "capability-default", source: capability };
    }
  }
  if (input.pluginToolRisk !== undefined && riskAbove(input.pluginToolRisk, decided.risk)) {
    decided = { risk: input.pluginToolRisk, rule: "plugin-tool", source: "plugin" };
  }
  const override = input.agentOverride;
  if (override === undefined) return decided;
  if (riskAbove(override.to, decided.risk)) return { risk: override.to, rule: "agent-raise", source: "agent" };
  if (riskAbove(decided.risk, override.to)) {
    return override.acknowledged === true
      ? { risk: override.to, rule: "agent-lower", source: "agent" }
      : { ...decided, rule: "lowering-refused", source: `agent (not acknowledged); kept ${decided.rule} from ${decided.source}` };
  }
  return decided;
}
