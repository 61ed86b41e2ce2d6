import type { Message, ToolResultBlock, ToolUseBlock } from "../../llm/index.js";
import { ConflictError } from "../../errors.js";
import type { Store } from "../../store/index.js";
import type { RunEndReason } from "../records.js";
import { hasState, readState, writeState } from "./state-rows.js";
import { setResultStatements } from "../run-values.js";

/** The ToolCalls of one model turn being worked through when the run paused for a person. */
export interface WaitingTurn {
  stepId: string;
  /** The model's text that led to the calls (shown to the approver). */
  context: string;
  uses: ToolUseBlock[];
  /** The use waiting for its approval; the ones before it already have results. */
  index: number;
  results: ToolResultBlock[];
  /** A ToolCall of this turn had input the loop could not use (the model is asked to correct it). */
  invalid?: boolean;
  /** Told to the model after the turn's results (e.g. calls past the turn's limit were not run). */
  notice?: string;
  /**
   * Set (and stored) just before the ToolCall at `index` starts, cleared once its result is in
   * `results`: a run continued with it still set was cut off inside that ToolCall.
   */
  since?: number;
  /** The node that set `since`. */
  node?: string;
}

/** What a model call's intent records: which Step, when, on which node, and the prompt's shape. */
export interface ModelCallIntent {
  stepId: string;
  since: number;
  node?: string;
  messages?: number;
  tools?: string[];
  maxTokens?: number;
}

/**
 * Everything the loop needs to continue a run, also in another process: this run's messages
 * (the conversation's history is read again from the store), its counters, and the turn it
 * paused in, if any.
 */
export interface LoopState {
  conversationId: string | null;
  /** The run's own messages, the task first. */
  messages: Message[];
  /** Steps taken (a Step is one model call). */
  steps: number;
  /** Model turns that asked for tools. */
  rounds: number;
  /** Model turns in a row whose tool input could not be used. */
  invalidStreak: number;
  /** How often each (tool, canonical input) was asked for. */
  calls: Record<string, number>;
  /** The (tool, canonical input) pairs whose input could not be used (absent in older stored states). */
  unusable?: Record<string, true>;
  /**
   * With `tool_retrieval`: tools the model found with `tools.search` or called, most recent
   * last, shown in every later Step (absent in older stored states).
   */
  pinnedTools?: string[];
  /** Time spent driving (not waiting for a person), against the run timeout. */
  activeMs: number;
  waiting: WaitingTurn | null;
  /**
   * The model call under way: its intent in the Step journal, written before its prompt leaves
   * (its `model_call` record, the outcome, comes when it ends). Found set when a run is
   * continued, the call was cut off: see ModelCallAudit.interrupted.
   */
  modelCall?: ModelCallIntent | null;
  /**
   * How the run ended, journaled before anything of its end is written (result, conversation,
   * the run's end): a node that continues a run found with it set finishes that end and never
   * asks the model again — a Step after the run's answer could repeat effects already made.
   */
  finished?: LoopFinish | null;
  /** A compaction failed or was refused in this run: no further one is tried until the next run. */
  compactionFailed?: boolean;
}

/** A loop-decided end: the finish Step's reason, the run's result text and its end reason. */
export interface LoopFinish {
  reason: string;
  result: string;
  endReason: RunEndReason;
}

export function initialLoopState(task: string, conversationId: string | null): LoopState {
  return {
    conversationId,
    messages: [{ role: "user", content: [{ type: "text", text: task }] }],
    steps: 0,
    rounds: 0,
    invalidStreak: 0,
    calls: {},
    activeMs: 0,
    waiting: null,
  };
}

/**
 * The `run_loops` table (one row per model-driven run) and the run's final text. A row marks
 * a run as driven by the model: the driver continues it through the loop after an approval.
 */
export class LoopStates {
  readonly #store: Store;
  readonly #now: () => number;

  readonly #node: string | undefined;

  /** With `node`, a state is stored only while no other node holds the run (fencing). */
  constructor(store: Store, options: { now: () => number; node?: string }) {
    this.#store = store;
    this.#now = options.now;
    this.#node = options.node;
  }

  async get(runId: string): Promise<LoopState | undefined> {
    const text = await readState(this.#store, runId);
    return text === undefined ? undefined : (JSON.parse(text) as LoopState);
  }

  /** Whether run `runId` is driven by the model (it has loop state), without reading the state. */
  has(runId: string): Promise<boolean> {
    return hasState(this.#store, runId);
  }

  async put(runId: string, state: LoopState): Promise<void> {
    // With a node, fenced: a node whose lease ran out and that another node took the run from
    // must not overwrite the new holder's journal with its own stale one.
    const written = await writeState(this.#store, runId, JSON.stringify(state), { now: this.#now(), node: this.#node });
    if (!written) throw new ConflictError("run_taken_over", `run ${runId} is driven by another node now (this node's lease ran out); it goes on there`);
  }

  /** Stores the run's final answer (or why it stopped), shown as the run's `result`. */
  async setResult(runId: string, text: string): Promise<void> {
    // Fenced as `put`: a node another took the run from leaves the new holder's result alone.
    // A long answer is kept in parts (run-values.ts): one statement may not move it.
    await this.#store.batch(setResultStatements(runId, text, { sql: "(? IS NULL OR node IS NULL OR node = ?)", args: [this.#node ?? null, this.#node ?? null] }));
  }
}

/** The run's task: the text of its first message (see LoopState.messages). */
export function taskText(state: LoopState): string {
  const first = state.messages[0];
  return first?.role === "user" ? first.content.map((block) => (block.type === "text" ? block.text : "")).join("") : "";
}
