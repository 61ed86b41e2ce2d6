/**
 * A ToolCall of an MCP session that waits for a person. When the client can ask its user
 * (MCP elicitation, form mode) and the session's principal may approve, the person is shown the
 * tool, the exact arguments (or the effect's canonical argv/URL) and the reason, and decides
 * there. Otherwise the approval waits in `/v1/approvals` like any other, and the call waits for
 * the decision within its deadline. Elicitation goes to the client application's user, never to
 * the model (MCP 2025-11-25, "Elicitation": servers request information from users through the
 * client). Where the approval offers `pattern_choices` (and the session knows the agent's
 * manifest, whose grant a pattern must stay within), the form offers each of them too, with how
 * long it lasts and whether it serves this session's run or every run of the agent; choosing one
 * approves by pattern as `POST /v1/approvals/:id` with `scope: pattern` does (audited alike).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { AgentManifest } from "../agents/index.js";
import { durationExpiry, patternChoices, type Approval, type ApprovalStore, type PatternChoice } from "../policy/approvals/index.js";
import type { ApprovalNeeded } from "../runs/types.js";
import { inert, jsonText } from "../text/inert.js";

/** Bytes of arguments shown in one elicitation message; the approval holds them whole. */
const SHOWN_ARGUMENTS = 4096;

export interface DecisionWait {
  readonly server: Server;
  readonly approvals: ApprovalStore;
  /** The session's person may decide through elicitation (stdio, or an admin/approver token). */
  readonly mayApprove: boolean;
  /** Recorded as the decider of an approval given through elicitation. */
  readonly decidedBy: string;
  /** When the call gives up waiting (epoch ms). */
  readonly deadline: number;
  readonly signal: AbortSignal;
  readonly pollMs: number;
  readonly now: () => number;
  /** Tells the client what the call waits for (a progress notification when it asked for them). */
  readonly progress: (message: string) => Promise<void>;
  /** The session agent's manifest as loaded now; without it no pattern is offered. */
  readonly agent?: () => AgentManifest | undefined;
}

/** How long a pattern chosen in the form lasts (the console offers the same). */
export const ELICIT_DURATIONS = ["1h", "2h", "8h", "today", "24h"] as const;

/** The patterns the form offers for `approval`: those the API offers, given the agent's manifest. */
export function elicitPatterns(approval: Approval, agent: AgentManifest | undefined): PatternChoice[] {
  if (agent === undefined || agent.name !== approval.agent) return [];
  if (approval.kind === "effect" && !agent.approvals.unsafe_patterns.includes(approval.tool)) return [];
  return patternChoices(approval.tool, approval.kind === "effect" ? approval.effect : approval.input);
}

export type WaitEnd = "decided" | "timeout" | "cancelled";

/** Waits until `needed` is decided; asks the person through elicitation first when that is possible. */
export async function awaitDecision(needed: ApprovalNeeded, wait: DecisionWait): Promise<WaitEnd> {
  const approval = await wait.approvals.get(needed.id);
  if (approval && approval.status !== "pending") return "decided";
  if (approval && wait.mayApprove && wait.server.getClientCapabilities()?.elicitation !== undefined) {
    const asked = await elicitDecision(approval, wait);
    if (asked !== "unanswered") return asked;
  }
  await wait.progress(`waiting for approval ${needed.id} (${inert(needed.reason, { newlines: false })}): decide it with 'clawhive approvals approve ${needed.id}' or POST /v1/approvals/${needed.id}`);
  while (wait.now() < wait.deadline) {
    if (wait.signal.aborted) return "cancelled";
    await sleep(Math.min(wait.pollMs, Math.max(1, wait.deadline - wait.now())), wait.signal);
    const current = await wait.approvals.get(needed.id);
    if (!current || current.status !== "pending") return "decided";
  }
  return wait.signal.aborted ? "cancelled" : "timeout";
}

async function elicitDecision(approval: Approval, wait: DecisionWait): Promise<WaitEnd | "unanswered"> {
  const agent = wait.agent?.();
  const patterns = elicitPatterns(approval, agent);
  const choices = [
    ...(approval.kind === "tool_call"
      ? [{ const: "once", title: "Approve this call" }, { const: "run", title: "Approve this tool for the rest of the session" }]
      : [{ const: "once", title: "Approve this effect" }]),
    ...patterns.map((choice, i) => ({ const: `pattern:${i + 1}`, title: `Approve pattern: ${inert(choice.summary, { newlines: false })}` })),
    { const: "deny", title: "Deny" },
  ];
  const properties: Record<string, { type: "string"; title: string; oneOf: Array<{ const: string; title: string }>; default?: string }> = {
    decision: { type: "string", title: "Decision", oneOf: choices },
  };
  if (patterns.length > 0) {
    properties.expires = { type: "string", title: "A pattern lasts", oneOf: ELICIT_DURATIONS.map((d) => ({ const: d, title: d === "today" ? "until midnight (server time)" : d })), default: "2h" };
    properties.applies_to = { type: "string", title: "A pattern serves", oneOf: [{ const: "run", title: "this session's run" }, { const: "agent", title: `every run of agent ${inert(approval.agent, { newlines: false })}` }], default: "run" };
  }
  let answer;
  try {
    answer = await wait.server.elicitInput(
      {
        mode: "form",
        message: approvalMessage(approval),
        requestedSchema: { type: "object", properties, required: ["decision"] },
      },
      { signal: wait.signal, timeout: Math.max(1, wait.deadline - wait.now()) },
    );
  } catch {
    // The client could not ask (no form support, a timeout, a transport error): the approval
    // stays pending where every approver sees it.
    if (wait.signal.aborted) return "cancelled";
    return wait.now() >= wait.deadline ? "timeout" : "unanswered";
  }
  if (answer.action === "cancel") return "unanswered";
  const decision = answer.action === "accept" ? answer.content?.["decision"] : "deny";
  const picked = typeof decision === "string" && /^pattern:[1-9][0-9]*$/.test(decision) ? patterns[Number(decision.slice("pattern:".length)) - 1] : undefined;
  if (picked !== undefined && agent !== undefined) return approveByPattern(approval, picked, agent, answer.content ?? {}, wait);
  const approve = decision === "once" || decision === "run";
  try {
    await wait.approvals.decide(approval.id, {
      decision: approve ? "approve" : "deny",
      by: wait.decidedBy,
      ...(approve && approval.kind === "tool_call" ? { scope: decision } : {}),
      reason: approve ? "approved in the MCP client" : "denied in the MCP client",
    });
  } catch {
    // Decided meanwhile through /v1/approvals (or expired): that decision stands.
  }
  return "decided";
}

/** The person chose a pattern: approved as the API approves by pattern; a bad answer leaves the approval pending. */
async function approveByPattern(approval: Approval, choice: PatternChoice, agent: AgentManifest, content: Record<string, unknown>, wait: DecisionWait): Promise<WaitEnd | "unanswered"> {
  const expires = content["expires"] ?? "2h";
  const appliesTo = content["applies_to"] ?? "run";
  if (typeof expires !== "string" || !(ELICIT_DURATIONS as readonly string[]).includes(expires) || (appliesTo !== "run" && appliesTo !== "agent")) return "unanswered";
  try {
    const expiry = durationExpiry(expires, wait.approvals.now(), "expires");
    await wait.approvals.approveByPattern(approval.id, { pattern: choice.pattern, expiresAt: expiry.at, appliesTo, by: wait.decidedBy, agent, reason: "approved by pattern in the MCP client" });
  } catch {
    // Decided meanwhile, expired, or the pattern no longer fits the grant (the manifest changed):
    // whatever stands is what /v1/approvals shows; a still-pending approval waits there.
    const current = await wait.approvals.get(approval.id);
    return current && current.status === "pending" ? "unanswered" : "decided";
  }
  return "decided";
}

/**
 * What the person sees: the tool, exactly what would run, and why a person is asked. Every part
 * a model, a tool or a plugin could have written is made inert as the API and CLI show it
 * (text/inert.ts): arguments as JSON with controls, bidi and invisible characters escaped, so
 * what the person reads is what would run (CVE-2021-42574) and an ANSI sequence cannot rewrite
 * the client's terminal.
 */
export function approvalMessage(approval: Approval): string {
  const what = approval.kind === "effect"
    ? `effect: ${inert(approval.capability ?? "?", { newlines: false })} ${clip(jsonText(approval.effect, { indent: 0 }))}`
    : `arguments: ${clip(jsonText(approval.input))}`;
  const lines = [
    `clawhive: ${inert(approval.tool, { newlines: false })} (${approval.risk}) asks for approval ${inert(approval.id, { newlines: false })}`,
    `agent: ${inert(approval.agent, { newlines: false })}, run: ${inert(approval.runId, { newlines: false })}`,
    what,
    `reason: ${inert(approval.reason)}`,
  ];
  if (approval.context) lines.push(`context: ${clip(inert(approval.context))}`);
  return lines.join("\n");
}

function clip(text: string): string {
  return text.length <= SHOWN_ARGUMENTS ? text : `${text.slice(0, SHOWN_ARGUMENTS)}… (${text.length} characters; the whole text is in 'clawhive approvals list')`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
