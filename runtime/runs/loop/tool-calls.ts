import { ClawhiveError } from "../../errors.js";
import { malformedInputResult, toolResult, type ToolResultBlock, type ToolUseBlock } from "../../llm/index.js";
import type { Run } from "../run.js";
import { spawnResultContent, subAgentOfTool, type SpawnResult } from "../sub-agents.js";
import { stopOnAuditFailure } from "../errors.js";
import type { LoopState, WaitingTurn } from "./state.js";
import { callSignature, errorResult, outcomeResult, repeatedCallResult } from "./tool-results.js";
import { auditRefusedCall, LOOP_DENIAL_REASONS, loopCallSubject } from "./refusals.js";
import { offersToolSearch, pinTools, TOOL_SEARCH, TOOL_SEARCH_MAX, type ToolRetrieval } from "./tool-retrieval.js";
import type { RunLoopOptions } from "./options.js";
import { isTodoTool, todoTools } from "../../todo/index.js";
import { todoCall } from "./todo-calls.js";

/**
 * The ToolCalls of a model turn, one at a time: input the loop cannot use, repeated calls,
 * sub-agents and tools the run does not have are answered here; the rest go through the run
 * (policy, approvals, audit).
 */
export class TurnCalls {
  readonly #options: RunLoopOptions;

  constructor(options: RunLoopOptions) {
    this.#options = options;
  }

  async callOne(run: Run, state: LoopState, turn: WaitingTurn, use: ToolUseBlock): Promise<ToolResultBlock | "paused" | "stopped"> {
    if (use.input_error !== undefined) {
      turn.invalid = true;
      // One denial on record either way: as a refused ToolCall of a tool the run has, else as a
      // refused call of a name it does not know.
      const input = { refused: "malformed-input", characters: use.raw_input?.length ?? 0 };
      const recorded = await run.refuseCall(use.name, input, { stepId: turn.stepId, kind: "invalid-input", denial: { capability: "tool-input", reason: "malformed-input", message: use.input_error } });
      if (!recorded) {
        const denial = { capability: "tool-input", reason: "malformed-input", message: `the arguments for ${use.name.slice(0, 200)} were not a JSON object: ${use.input_error}` };
        await auditRefusedCall(this.#options.audit, run, { stepId: turn.stepId, use, denial });
      }
      return malformedInputResult(use);
    }
    const signature = callSignature(use);
    const times = state.calls[signature] ?? 0;
    if (times >= (this.#options.maxRepeats ?? 2)) {
      // Repeating a call whose input was unusable (an unknown tool, invalid input) is unusable
      // input again: the streak goes on, so the run stops after 3 such turns, not at max_tool_rounds.
      if (state.unusable?.[signature]) turn.invalid = true;
      const result = repeatedCallResult(use, times);
      // Shown and audited as every refusal is: a ToolCall of one of the run's tools through the
      // run (its events, the report), a name it does not have as the loop's own denial record.
      const denial = { capability: "tool", reason: LOOP_DENIAL_REASONS.repeatedCall, message: result.error.message };
      if (!(await run.refuseCall(use.name, use.input, { stepId: turn.stepId, kind: "repeated-call", denial }))) await auditRefusedCall(this.#options.audit, run, { stepId: turn.stepId, use, denial });
      return result.block;
    }
    state.calls[signature] = times + 1;
    const unusable = () => {
      turn.invalid = true;
      (state.unusable ??= {})[signature] = true;
    };
    if (use.name === TOOL_SEARCH && this.#options.toolRetrieval && run.agent.tool_retrieval && offersToolSearch(run.tools)) {
      const found = await this.#searchTools(run, state, turn, use, this.#options.toolRetrieval);
      if ("invalid" in found) unusable();
      return found.block;
    }
    if (isTodoTool(use.name) && this.#options.todos && run.agent.todo !== undefined) {
      return todoCall(run, { use, stepId: turn.stepId, conversationId: state.conversationId, lists: this.#options.todos, audit: this.#options.audit, unusable });
    }
    const subAgent = subAgentOfTool(use.name);
    if (subAgent !== undefined && this.#options.subAgents) {
      // Only a sub-agent the model was offered: any other name is a tool the run does not have,
      // and is never looked up among the node's agents (whose names the model may not learn).
      const offered = (await this.#options.subAgents.tools(run)).some((tool) => tool.name === use.name);
      if (!offered) {
        unusable();
        return this.#unknownTool(run, turn, use);
      }
      const task = (use.input as { task?: unknown }).task;
      if (typeof task !== "string" || task.trim() === "") {
        unusable();
        const message = "task: expected the task for the sub-agent, as text";
        await auditRefusedCall(this.#options.audit, run, { stepId: turn.stepId, use, denial: { capability: "agent.spawn", reason: LOOP_DENIAL_REASONS.invalidInput, message } });
        return errorResult(use, { kind: "invalid-input", message });
      }
      let spawned: SpawnResult;
      try {
        spawned = await this.#options.subAgents.spawn(run, { agent: subAgent, task, stepId: turn.stepId });
      } catch (error) {
        // Removed from the node since it was offered: the model is told, the run goes on.
        if (error instanceof ClawhiveError && error.code === "not_found" && !run.ended && !run.cancelled) {
          unusable();
          return this.#unknownTool(run, turn, use);
        }
        throw error;
      }
      if (spawned.status !== "awaiting_approval") {
        const told = spawnResultContent(spawned);
        return toolResult(use.id, told.content, { isError: told.isError });
      }
      // The child waits for a person: so does this run, until the child ends (continued by the
      // child's end on this node, or by a driver's tick on any node).
      await run.waitForSubAgent({ tool: use.name, input: use.input, stepId: turn.stepId, approvalId: spawned.approvalId ?? "", childRunId: spawned.runId, toolCallId: use.id });
      // Decided and ended meanwhile (on another node): nothing to wait for.
      return (await this.subAgentResult(run, use)) ?? "paused";
    }
    try {
      const outcome = await run.callTool(use.name, use.input, { stepId: turn.stepId, ...(turn.context ? { context: turn.context } : {}) });
      if (outcome.status === "approval_required") return "paused";
      stopOnAuditFailure(outcome);
      if (outcome.status === "error" && outcome.error.kind === "invalid-input") unusable();
      return outcomeResult(use, outcome);
    } catch (error) {
      if (run.ended || run.cancelled) return "stopped";
      // A tool the run does not have (the model made one up): the model is told and may retry.
      if (error instanceof ClawhiveError && (error.code === "not_found" || error.code === "ambiguous_tool")) {
        unusable();
        return this.#unknownTool(run, turn, use, error.code === "ambiguous_tool" ? error.message : undefined);
      }
      throw error;
    }
  }

  /**
   * `tools.search`: the run's own tools ranked for the model's words, pinned so that the next
   * Steps show them. Audited as a ToolCall the loop answers itself: its intent and its outcome
   * (the names it returned), durable before the model sees them.
   */
  async #searchTools(run: Run, state: LoopState, turn: WaitingTurn, use: ToolUseBlock, retrieval: ToolRetrieval): Promise<{ block: ToolResultBlock; invalid?: true }> {
    const input = use.input as { query?: unknown; limit?: unknown };
    const extra = Object.keys(use.input).filter((k) => k !== "query" && k !== "limit");
    const problem =
      typeof input.query !== "string" || input.query.trim() === "" || input.query.length > 500
        ? "query: expected a few words (1 to 500 characters)"
        : input.limit !== undefined && (typeof input.limit !== "number" || !Number.isInteger(input.limit) || input.limit < 1 || input.limit > TOOL_SEARCH_MAX)
          ? `limit: expected a whole number from 1 to ${TOOL_SEARCH_MAX}`
          : extra.length > 0
            ? `${extra[0]!.slice(0, 64)}: not an input of ${TOOL_SEARCH}`
            : undefined;
    if (problem !== undefined) {
      await auditRefusedCall(this.#options.audit, run, { stepId: turn.stepId, use, denial: { capability: "tool", reason: LOOP_DENIAL_REASONS.invalidInput, message: problem } });
      return { block: errorResult(use, { kind: "invalid-input", message: problem }), invalid: true };
    }
    const intent = await this.#options.audit.appendIntent({ ...loopCallSubject(run, turn.stepId, use), args: { query: input.query as string, limit: (input.limit as number | undefined) ?? 8 } });
    const ranked = (await retrieval.rank(run.tools, input.query as string)).slice(0, (input.limit as number | undefined) ?? 8);
    const tools = ranked.map((t) => ({ name: t.qualifiedName, description: t.description, risk: t.risk }));
    const text = JSON.stringify({ tools });
    await this.#options.audit.appendOutcome(intent, { status: "ok", resultSize: Buffer.byteLength(text), summary: { found: tools.map((t) => t.name) } });
    // The best match pinned last: the most recent pins are the first shown.
    pinTools((state.pinnedTools ??= []), ranked.map((t) => t.qualifiedName).reverse());
    return { block: toolResult(use.id, text) };
  }

  /**
   * A tool or sub-agent the run does not have (the model made one up): an error result the model
   * sees, naming only the run's own tools, and a denial on record. The run goes on.
   */
  async #unknownTool(run: Run, turn: WaitingTurn, use: ToolUseBlock, detail?: string): Promise<ToolResultBlock> {
    turn.invalid = true;
    const name = use.name.slice(0, 200);
    const own = [...run.tools.map((t) => t.qualifiedName), ...((await this.#options.subAgents?.tools(run)) ?? []).map((t) => t.name), ...(this.#options.todos ? todoTools(run.agent.todo).map((t) => t.name) : [])];
    const message = detail ?? `this run has no tool ${JSON.stringify(name)}; its tools: ${own.join(", ") || "none"}`;
    await auditRefusedCall(this.#options.audit, run, { stepId: turn.stepId, use, denial: { capability: "tool", reason: LOOP_DENIAL_REASONS.unknownTool, message } });
    return errorResult(use, { kind: "unknown-tool", message });
  }

  /**
   * The tool result of the sub-agent call the run waits on, once the child has ended (the run
   * is active again); `undefined` while the child goes on or waits.
   */
  async subAgentResult(run: Run, use: ToolUseBlock): Promise<ToolResultBlock | undefined> {
    const childRunId = run.pending?.childRunId;
    if (childRunId === undefined || !this.#options.subAgents) return undefined;
    const ended = await this.#options.subAgents.ended(childRunId);
    if (ended === undefined) return undefined;
    await run.subAgentEnded();
    const told = spawnResultContent(ended);
    return toolResult(use.id, told.content, { isError: told.isError });
  }
}
