import type { Run } from "../run.js";
import type { RunLoopOptions } from "./options.js";
import type { LoopState, WaitingTurn } from "./state.js";

/**
 * The Step journal of a model-driven run: the turn, the results so far and the start of the
 * ToolCall `call` runs (a first call, or the replay of one whose approval was decided) are durable
 * before it runs, so a node taking the run over replays the results, never re-runs a finished
 * ToolCall, and sees the effects one it stopped inside had begun.
 */
export async function journaled<T>(options: Pick<RunLoopOptions, "now" | "node" | "states">, run: Run, state: LoopState, turn: WaitingTurn, call: () => Promise<T>): Promise<T> {
  turn.since = options.now();
  turn.node = options.node ?? "unknown";
  state.waiting = turn;
  await options.states.put(run.id, state);
  try {
    return await call();
  } finally {
    delete turn.since;
    delete turn.node;
  }
}
