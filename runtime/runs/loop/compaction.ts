/**
 * Summarising compaction, the loop's side: before a Step's request leaves, when it passes the
 * agent's `model.compaction.at_tokens`, the conversation's older turns are summarised by the
 * agent's own model and the summary replaces them in the `history` zone (llm/compaction). The
 * summary call is a Step of its own (`compact`): its intent is journaled, it is audited as a
 * `model_call`, its usage is the run's, and the run's deadline and cancel cut it short.
 * A summary call that fails or answers something unusable leaves the history as it was: the
 * run goes on (the budget drops the oldest turns instead) and tries no further compaction.
 */
import { compactedView, countMessageTokens, countTextTokens, countTokens, countToolTokens, DEFAULT_CONTEXT_TOKENS, LlmError, planCompaction, readSummary, summaryRequest, transcriptBudget, transcriptOf, type CompactedView, type HistoryMessage, type LlmProvider, type LlmRequest } from "../../llm/index.js";
import type { Compaction } from "../compactions.js";
import type { Conversations } from "../conversations.js";
import { leaseGuard } from "../fence.js";
import type { Run } from "../run.js";
import type { ModelCallAudit } from "./model-calls.js";
import type { LoopState, LoopStates } from "./state.js";

export interface CompactionContext {
  conversations: Conversations;
  states: LoopStates;
  now: () => number;
  node?: string;
}

/** The conversation's earlier turns during one drive, and the compactions in force over them. */
export class DriveHistory {
  readonly messages: HistoryMessage[];
  compactions: Compaction[];

  constructor(messages: HistoryMessage[], compactions: Compaction[]) {
    this.messages = messages;
    this.compactions = compactions;
  }

  /** What the model sees of it: compacted ranges as summaries in the history zone. */
  view(): CompactedView {
    return compactedView(this.messages, this.compactions.filter((c) => c.undoneAt === null));
  }
}

/** Reads the history a drive starts from (never the run's own turn: those messages are in its state). */
export async function readHistory(context: CompactionContext, run: Run, state: LoopState): Promise<DriveHistory> {
  if (!state.conversationId) return new DriveHistory([], []);
  const messages = (await context.conversations.messages(state.conversationId)).filter((m) => m.runId !== run.id).map(({ seq, runId, role, content }) => ({ seq, runId, role, content }));
  // Read even when the agent no longer compacts: what was compacted stays so until undone.
  return new DriveHistory(messages, await context.conversations.compactions.list(state.conversationId));
}

/** A request's size as the threshold counts it: system prompt, tools, messages and the answer's room. */
export function requestTokens(request: LlmRequest): number {
  return countTextTokens(request.system) + countToolTokens(request.tools) + countTokens(request.messages) + request.max_tokens;
}

/**
 * Compacts `history` when `request` (the Step's request built from it, not yet fitted; built
 * only for an agent that compacts) passes the threshold.
 * Returns whether it compacted (the history's view changed: the request is built again, and
 * a history still over the threshold may compact its next turns).
 */
export async function compactIfDue(
  context: CompactionContext,
  run: Run,
  options: { state: LoopState; history: DriveHistory; request: () => LlmRequest; provider: LlmProvider; modelCalls: ModelCallAudit; signal: AbortSignal },
): Promise<boolean> {
  const { state, history } = options;
  const settings = run.agent.model.compaction;
  if (settings === undefined || !state.conversationId || state.compactionFailed) return false;
  const contextTokens = run.agent.model.context_tokens ?? DEFAULT_CONTEXT_TOKENS;
  const at = settings.at_tokens ?? Math.floor((contextTokens * 4) / 5);
  if (requestTokens(options.request()) <= at) return false;
  const summaryOptions = { maxTokens: settings.summary_tokens, contextTokens };
  const budget = transcriptBudget(summaryOptions);
  const after = Math.max(0, ...history.compactions.map((c) => c.throughSeq));
  const planned = planCompaction(history.messages, { keepRecentTurns: settings.keep_recent_turns, after, fits: (messages) => countTextTokens(transcriptOf(messages)) <= budget });
  if ("refused" in planned) {
    // Nothing left to compact is no event; a range that could only be cut through a tool call is.
    if (planned.refused.startsWith("no turn")) return false;
    state.compactionFailed = true;
    run.recordStep({ stepId: `step_${++state.steps}`, action: "compact", usage: null, reason: `compaction_refused: ${planned.refused}` });
    return false;
  }
  const { plan } = planned;
  const stepId = `step_${++state.steps}`;
  const request = summaryRequest(plan.messages, summaryOptions);
  // Journaled like a Step's model call: a node taking over records it as cut off and goes on.
  state.modelCall = { stepId, since: context.now(), node: context.node ?? "unknown", messages: request.messages.length, tools: [], maxTokens: request.max_tokens };
  await context.states.put(run.id, state);
  let response;
  try {
    response = await options.modelCalls.complete(options.provider, request, { signal: options.signal, stepId, silent: true });
  } catch (error) {
    state.modelCall = null;
    // A cancel or the run's deadline stops the run; any other provider failure only this compaction.
    if (!(error instanceof LlmError) || error.code === "llm_aborted" || options.signal.aborted) throw error;
    state.compactionFailed = true;
    run.recordStep({ stepId, action: "compact", usage: null, model: options.provider.model, reason: `compaction_failed: ${error.code}: ${error.message}` });
    return false;
  }
  state.modelCall = null;
  const replacedTokens = plan.messages.reduce((sum, m) => sum + countMessageTokens(m), 0);
  const read = readSummary(response, { replacedTokens, maxTokens: settings.summary_tokens });
  if ("unusable" in read) {
    state.compactionFailed = true;
    run.recordStep({ stepId, action: "compact", usage: response.usage, model: response.model, reason: `compaction_unusable: ${read.unusable}` });
    return false;
  }
  const added = await context.conversations.compactions.add(
    { conversationId: state.conversationId, fromSeq: plan.fromSeq, throughSeq: plan.throughSeq, turns: plan.turns, summary: read.summary, runId: run.id, stepId, model: response.model, tokensBefore: replacedTokens, tokensAfter: read.tokens },
    { guard: leaseGuard(run.id, context.node, context.now) },
  );
  history.compactions = await context.conversations.compactions.list(state.conversationId);
  if (added === undefined) {
    // Another run of the conversation compacted this range meanwhile: its summary is used.
    run.recordStep({ stepId, action: "compact", usage: response.usage, model: response.model, reason: "compaction_superseded: another run compacted these messages first" });
    return true;
  }
  const compaction = { n: added.n, fromSeq: added.fromSeq, throughSeq: added.throughSeq, turns: added.turns, tokensBefore: added.tokensBefore, tokensAfter: added.tokensAfter };
  run.recordStep({ stepId, action: "compact", usage: response.usage, model: response.model, compaction, ...(plan.shifted ? { reason: "shifted: the range ends before a tool call whose result came later" } : {}) });
  return true;
}
