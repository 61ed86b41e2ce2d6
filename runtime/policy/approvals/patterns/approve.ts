import type { AgentManifest } from "../../../agents/index.js";
import { InvalidInputError } from "../../../errors.js";
import type { ApprovalContext } from "../context.js";
import { decideApproval } from "../decide.js";
import { ApprovalError } from "../errors.js";
import { readApproval } from "../query.js";
import type { Approval } from "../types.js";
import type { PatternSpec } from "./choices.js";
import { matchArguments } from "./glob.js";
import { checkWithinGrant } from "./grant.js";
import { createPattern, type ApprovalPattern } from "./store.js";

export interface ApprovePatternInput {
  readonly pattern: PatternSpec;
  readonly expiresAt: number;
  /** `run`: the approval's run only; `agent`: every run of its agent until it expires. */
  readonly appliesTo: "run" | "agent";
  readonly by: string;
  readonly reason?: string;
  /** The manifest of the approval's agent, as it is now: what the pattern must stay within. */
  readonly agent: AgentManifest;
}

/**
 * Approves a pending approval by a pattern: the call that asked runs (the approval is decided
 * `once`), and later calls the pattern covers run without asking until it expires. Refused (400,
 * naming the field) when the pattern is for another tool or agent, reaches outside the grant, does
 * not cover the very call it approves, or is over an Unsafe effect the manifest does not open to
 * patterns.
 */
export async function approveByPattern(ctx: ApprovalContext, id: string, input: ApprovePatternInput): Promise<{ approval: Approval; pattern: ApprovalPattern }> {
  const current = await readApproval(ctx, id);
  if (current === undefined) throw new ApprovalError("approval_not_found", `approval ${id}: not found; list pending approvals to see which exist`);
  if (input.agent.name !== current.agent) throw new InvalidInputError(`pattern: approval ${id} is agent ${current.agent}'s, not ${input.agent.name}'s`, { field: "pattern" });
  if (input.pattern.tool !== current.tool) {
    throw new InvalidInputError(`pattern.tool: ${input.pattern.tool} is not the tool this approval asks for (${current.tool})`, { field: "pattern.tool" });
  }
  if (current.kind === "effect" && !input.agent.approvals.unsafe_patterns.includes(current.tool)) {
    throw new InvalidInputError(
      `scope: ${current.tool} is Unsafe and agent ${current.agent} does not list it in approvals.unsafe_patterns; approve this effect once`,
      { field: "scope" },
    );
  }
  checkWithinGrant(input.agent, input.pattern, "pattern");
  const covered = current.kind === "effect" ? current.effect : current.input;
  if (!matchArguments(input.pattern.arguments, covered)) {
    throw new InvalidInputError(
      `pattern.arguments: the pattern does not cover the call it would approve (its canonical arguments, every path, address and URL of them named); pick one of pattern_choices`,
      { field: "pattern.arguments" },
    );
  }
  const approval = await decideApproval(ctx, { id, decision: "approve", scope: "once", by: input.by, reason: input.reason ?? "approved by pattern" });
  const pattern = await createPattern(ctx, {
    agent: current.agent,
    kind: current.kind,
    pattern: input.pattern,
    capability: current.capability,
    runId: input.appliesTo === "run" ? current.runId : null,
    approvalId: id,
    expiresAt: input.expiresAt,
    by: input.by,
  });
  return { approval, pattern };
}
