import { todoTools } from "../../todo/index.js";
import { ClawhiveError } from "../../errors.js";
import { responseText, toolUses, withToolProtocol, type LlmResponse, type ToolUseBlock } from "../../llm/index.js";
import { pinCalledTools, shownTools } from "./shown-tools.js";
import type { Run } from "../run.js";
import { stopOnAuditFailure } from "../errors.js";
import { ModelCallAudit } from "./model-calls.js";
import { interruptedEffects } from "../takeover.js";
import { journaled } from "./journal.js";
import { buildStepRequest, stepRequest } from "./request.js";
import { compactIfDue, readHistory } from "./compaction.js";
import { effectiveMounts } from "../grant-limits.js";
import { taskText, type LoopFinish, type LoopState, type WaitingTurn } from "./state.js";
import type { RunLoopOptions } from "./options.js";

export type { RunLoopOptions } from "./options.js";
import { outcomeResult } from "./tool-results.js";
import { limitTurn } from "./refusals.js";
import { TurnCalls } from "./tool-calls.js";
import { leaseGuard } from "../fence.js";
import { withRunLogFields } from "../../telemetry/run-log-fields.js";

/** Why the loop stopped driving for now. */
type Halt = "continue" | "paused" | "stopped";

/** Loop-imposed ends: the finish Step's reason and the run's result text. */
type Stop = LoopFinish;

/**
 * The model-driven run loop: each Step sends the conversation so far and the run's tools to
 * the model, runs the ToolCalls it asks for through the run (policy, approvals, audit), and
 * sends their results back, until the model answers without a ToolCall. A ToolCall that needs
 * a person pauses the loop with its state in the store; `drive` continues it after the
 * decision, in this process or another.
 */
export class RunLoop {
  readonly #options: RunLoopOptions;
  readonly #inFlight = new Set<AbortController>();
  /** The model-call audit of each run being driven, by run id. */
  readonly #modelCalls = new Map<string, ModelCallAudit>();
  #closing = false;
  readonly #calls: TurnCalls;

  constructor(options: RunLoopOptions) {
    this.#options = options;
    this.#calls = new TurnCalls(options);
  }

  /** Whether run `id` is driven by the model (it has loop state). */
  async owns(id: string): Promise<boolean> {
    return this.#options.states.has(id);
  }

  /**
   * Stops driving (the runtime is closing): model calls in flight are aborted and each run is
   * left as it stands in the store, its state saved, to be continued (`continueRun`) later.
   */
  close(): void {
    this.#closing = true;
    for (const controller of this.#inFlight) controller.abort();
  }

  /** Drives `run` from its stored state until it ends or waits for a person. */
  async drive(run: Run): Promise<void> {
    const state = await this.#options.states.get(run.id);
    if (!state || run.ended || this.#closing) return;
    const controller = new AbortController();
    this.#inFlight.add(controller);
    const modelCalls = new ModelCallAudit(this.#options.audit, run, { now: this.#options.now });
    this.#modelCalls.set(run.id, modelCalls);
    // Ending the run (cancel, on any node: the driver's tick ends it here) aborts the model call in flight.
    const off = run.onEvent((event) => {
      if (event.type === "run-ended") controller.abort();
    });
    const timeoutMs = run.agent.limits.run_timeout_ms;
    const started = performance.now();
    const timer = setTimeout(() => {
      // The model call in flight ends as timed out (its audit record says so), then the run.
      controller.abort(new DOMException(`the run took longer than ${timeoutMs} ms (limits.run_timeout_ms)`, "TimeoutError"));
      // A failed end write is the drive's guard's to retry (the run is ended here all the same).
      void this.#timeout(run, state, timeoutMs).catch(() => undefined);
    }, Math.max(0, timeoutMs - state.activeMs));
    timer.unref();
    try {
      await withRunLogFields(run, () => this.#run(run, state, controller.signal));
    } catch (error) {
      // A run another node took over is that node's to end: this one only stops.
      const taken = error instanceof ClawhiveError && error.code === "run_taken_over";
      if (!run.ended && !run.cancelled && !this.#closing && !taken) {
        const message = error instanceof Error ? error.message : String(error);
        const code = error instanceof ClawhiveError ? error.code : "loop_error";
        await this.#finish(run, state, { reason: code, result: `the run failed: ${code}: ${message}`, endReason: "failed" });
      }
    } finally {
      clearTimeout(timer);
      off();
      this.#inFlight.delete(controller);
      // A call that ended with the run (cancelled, failed, runtime closing) is durable too.
      await modelCalls.settle();
      this.#modelCalls.delete(run.id);
      state.activeMs += performance.now() - started;
      if (!run.ended) await this.#options.states.put(run.id, state).catch((error: unknown) => {
        if (!(error instanceof ClawhiveError && error.code === "run_taken_over")) throw error;
      });
    }
  }

  async #run(run: Run, state: LoopState, signal: AbortSignal): Promise<void> {
    // Its end was journaled (its node stopped while ending it): that end is finished here.
    const ended = state.finished ?? answered(state);
    if (ended) return this.#complete(run, state, ended, { continued: true });
    if (state.modelCall) {
      // Cut off inside a model call (see ModelCallAudit.interrupted): recorded, then asked again.
      await this.#modelCalls.get(run.id)!.interrupted(this.#options.provider(run.agent), state.modelCall);
      state.modelCall = null;
    }
    if (state.waiting) {
      const halt = await this.#resumeTurn(run, state, state.waiting);
      if (halt !== "continue") return;
    }
    const provider = withToolProtocol(run.agent.model, this.#options.provider(run.agent));
    // Earlier turns (not this run's own: those are in its state) and their compactions, read once a drive.
    const history = await readHistory(this.#options, run, state);
    // Skills, memory and sub-agent tools are read once per drive, like the history.
    const skills = (await this.#options.skills?.(run)) ?? "";
    const memory = (await this.#options.memory?.(run, taskText(state))) ?? "";
    const subAgents = (await this.#options.subAgents?.tools(run)) ?? [];
    const mounts = effectiveMounts(run.layers);
    for (;;) {
      if (run.ended || run.cancelled || this.#closing) return;
      const shown = await shownTools(run, state, this.#options.toolRetrieval, taskText(state));
      const todo = this.#options.todos ? todoTools(run.agent.todo) : [];
      const parts = () => ({ tools: shown.tools, extraTools: shown.extra, todo, messages: [...history.view().messages, ...state.messages], history: history.view().zone.join("\n\n"), now: this.#options.now(), skills, memory, subAgents, mounts });
      if (await compactIfDue(this.#options, run, { state, history, request: () => stepRequest(run.agent, parts()), provider: this.#options.provider(run.agent), modelCalls: this.#modelCalls.get(run.id)!, signal })) continue;
      const stepId = `step_${++state.steps}`;
      const request = buildStepRequest(run.agent, parts());
      // Durable before the prompt leaves the machine: the model call's intent, and with it the
      // turns so far (a node taking the run over continues from here, asking the model again).
      state.modelCall = { stepId, since: this.#options.now(), node: this.#options.node ?? "unknown", messages: request.messages.length, tools: request.tools.map((tool) => tool.name), maxTokens: request.max_tokens };
      await this.#options.states.put(run.id, state);
      const response = await this.#modelCalls.get(run.id)!.complete(provider, request, { signal, stepId });
      state.modelCall = null;
      if (run.ended || run.cancelled) return;
      const uses = toolUses(response);
      if (uses.length === 0) return this.#answer(run, state, stepId, response);
      if (state.rounds >= run.agent.limits.max_tool_rounds) {
        run.recordStep({ stepId, action: "tool_call", usage: response.usage, model: response.model, toolCalls: uses.length });
        const limit = run.agent.limits.max_tool_rounds;
        return this.#finish(run, state, { reason: "max_tool_rounds", result: `stopped: the model asked for more tool calls after ${limit} rounds (limits.max_tool_rounds)`, endReason: "failed" });
      }
      state.rounds++;
      run.recordStep({ stepId, action: "tool_call", usage: response.usage, model: response.model, toolCalls: uses.length });
      const turn = await this.#turn(run, state, stepId, response, uses);
      if ((await this.#work(run, state, turn)) !== "continue") return;
    }
  }

  /** The turn of ToolCalls the model asked for, cut to the turn's limit (see `limitTurn`). */
  async #turn(run: Run, state: LoopState, stepId: string, response: LlmResponse, uses: ToolUseBlock[]): Promise<WaitingTurn> {
    const limited = await limitTurn(this.#options.audit, run, { stepId, content: response.content, uses });
    state.messages.push({ role: "assistant", content: limited.content });
    pinCalledTools(run, state, limited.uses);
    return { stepId, context: responseText(response), uses: limited.uses, index: 0, results: [], ...(limited.notice === undefined ? {} : { notice: limited.notice }) };
  }

  /** The model answered without a ToolCall: its text is the run's result. */
  async #answer(run: Run, state: LoopState, stepId: string, response: LlmResponse): Promise<void> {
    // An empty answer still takes its place in the history (the APIs refuse an empty message).
    state.messages.push({ role: "assistant", content: responseText(response).trim() === "" ? [{ type: "text", text: "(no answer)" }] : response.content });
    run.recordStep({ stepId, action: "respond", usage: response.usage, model: response.model });
    await this.#finish(run, state, { reason: "completed", result: responseText(response), endReason: "completed" });
  }

  /**
   * Replays the ToolCall the run paused on (its approval is decided), then the rest of its turn
   * (also a turn left half done when the runtime closed).
   */
  async #resumeTurn(run: Run, state: LoopState, turn: WaitingTurn): Promise<Halt> {
    if (run.status === "active" && turn.since !== undefined) {
      // Its node stopped inside this ToolCall: re-run it only if it had begun no effect.
      const reason = await interruptedEffects(this.#options.audit, run.id, { since: turn.since, ...(turn.node === undefined ? {} : { node: turn.node }), ...(this.#options.node === undefined ? {} : { by: this.#options.node }) });
      const use = turn.uses[turn.index]!;
      delete turn.since;
      delete turn.node;
      if (reason !== undefined) {
        const outcome = await run.pauseInterrupted(use.name, use.input, { stepId: turn.stepId, reason });
        if (outcome.status === "approval_required") {
          state.waiting = turn;
          await this.#options.states.put(run.id, state);
          return "paused";
        }
        turn.results.push(outcomeResult(use, outcome));
        turn.index++;
      }
    }
    if (run.status === "awaiting_approval" && run.pending?.childRunId !== undefined) {
      const result = await this.#calls.subAgentResult(run, turn.uses[turn.index]!);
      if (result === undefined) return "paused";
      turn.results.push(result);
      turn.index++;
    } else if (run.status === "awaiting_approval") {
      // The replay of the approved ToolCall is journaled like any ToolCall's start.
      const outcome = await journaled(this.#options, run, state, turn, () => run.resume());
      if (!outcome || outcome.status === "approval_required") {
        await this.#options.states.put(run.id, state);
        return "paused";
      }
      stopOnAuditFailure(outcome);
      turn.results.push(outcomeResult(turn.uses[turn.index]!, outcome));
      turn.index++;
    }
    return this.#work(run, state, turn);
  }

  /** Runs the turn's ToolCalls from `turn.index` on; their results go back as one user message. */
  async #work(run: Run, state: LoopState, turn: WaitingTurn): Promise<Halt> {
    for (; turn.index < turn.uses.length; turn.index++) {
      if (run.ended || run.cancelled) return "stopped";
      if (this.#closing) {
        // The rest of the turn runs when the run is continued.
        state.waiting = turn;
        return "paused";
      }
      const use = turn.uses[turn.index]!;
      const result = await journaled(this.#options, run, state, turn, () => this.#calls.callOne(run, state, turn, use));
      if (result === "stopped") return "stopped";
      if (result === "paused") {
        state.waiting = turn;
        await this.#options.states.put(run.id, state);
        return "paused";
      }
      turn.results.push(result);
    }
    state.waiting = null;
    state.messages.push({ role: "user", content: turn.notice === undefined ? turn.results : [...turn.results, { type: "text", text: turn.notice }] });
    state.invalidStreak = turn.invalid ? state.invalidStreak + 1 : 0;
    const most = run.agent.model.tool_call_attempts ?? this.#options.maxInvalidTurns ?? 3;
    if (state.invalidStreak >= most) {
      await this.#finish(run, state, { reason: "invalid_input", result: `stopped: the model's tool input was invalid ${most} turns in a row`, endReason: "failed" });
      return "stopped";
    }
    return "continue";
  }

  /** Ends the run: its result text, a finish Step, the turn added to its conversation. */
  async #finish(run: Run, state: LoopState, stopped: Stop): Promise<void> {
    if (run.ended) return;
    // The model calls the result rests on are durable before it is reported; one that could
    // not be recorded fails a run that would otherwise complete.
    const unrecorded = await this.#modelCalls.get(run.id)?.settle();
    const stop: Stop =
      unrecorded !== undefined && stopped.endReason === "completed"
        ? { reason: "audit_write_failed", result: `the run failed: audit_write_failed: a model call could not be recorded: ${unrecorded.message}`, endReason: "failed" }
        : stopped;
    state.waiting = null;
    state.modelCall = null;
    // The Step journal's last entry: from here on the run only ends (see LoopState.finished).
    state.finished = stop;
    await this.#options.states.put(run.id, state);
    await this.#complete(run, state, stop, { continued: false });
  }

  /**
   * Writes a journaled end: the result, the turn added to the conversation (once: a node that
   * stopped after appending it left it there), the finish Step, the run's end.
   */
  async #complete(run: Run, state: LoopState, stop: Stop, options: { continued: boolean }): Promise<void> {
    if (run.ended) return;
    await this.#options.states.setResult(run.id, stop.result);
    // Only a completed turn joins the conversation: it never holds a call without its result.
    if (stop.endReason === "completed" && state.conversationId) {
      const appended = options.continued && (await this.#options.conversations.hasTurnOf(state.conversationId, run.id));
      // Fenced: a node another took the run from leaves the turn to it.
      if (!appended) await this.#options.conversations.append(state.conversationId, state.messages, { runId: run.id, guard: leaseGuard(run.id, this.#options.node, this.#options.now) });
    }
    run.recordStep({ stepId: `step_${state.steps}`, action: "finish", usage: null, reason: stop.reason });
    await run.end(stop.endReason);
  }

  /** The run timeout (limits.run_timeout_ms, counted while driving, not while waiting): cancel it. */
  async #timeout(run: Run, state: LoopState, timeoutMs: number): Promise<void> {
    if (run.ended) return;
    await this.#options.states.setResult(run.id, `cancelled: the run took longer than ${timeoutMs} ms (limits.run_timeout_ms)`).catch(() => undefined);
    run.recordStep({ stepId: `step_${state.steps}`, action: "finish", usage: null, reason: "run_timeout" });
    await run.cancel();
  }
}

/**
 * The end of a run whose state already holds the model's answer (its last message is the
 * model's, asking for no tool) but no journaled end, as a state written before ends were
 * journaled may: the answer is the run's result.
 */
function answered(state: LoopState): Stop | undefined {
  const last = state.messages.at(-1);
  if (state.waiting || state.modelCall || last?.role !== "assistant" || last.content.some((block) => block.type === "tool_use")) return undefined;
  const text = last.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  return { reason: "completed", result: text, endReason: "completed" };
}
