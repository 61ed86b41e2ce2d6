/**
 * Which earlier messages of a conversation a compaction replaces: whole turns (a turn is one
 * run's messages), oldest first, never the `keepRecentTurns` latest, and never a boundary that
 * separates a tool call from its result. The APIs refuse a tool_result whose tool_use is gone
 * (and the reverse), and a summary standing between the two would be worse: the model would
 * see a result it cannot place. A boundary that would split is shifted to an earlier message;
 * when none is left, the compaction is refused with the reason.
 */
import type { Message } from "../model.js";

/** A stored conversation message: its place (`seq`) and the run whose turn it was. */
export interface HistoryMessage extends Message {
  seq: number;
  runId: string | null;
}

export interface CompactionPlanOptions {
  /** The latest turns kept as they are (0: every earlier turn may be compacted). */
  keepRecentTurns: number;
  /** Messages up to this seq are already compacted (or were, and were restored): never again. */
  after?: number;
  /** Whether a range is small enough to summarise in one call; the newest turns leave it until it is. */
  fits?: (messages: readonly HistoryMessage[]) => boolean;
}

/** The messages to summarise: seq `fromSeq` through `throughSeq`, `turns` whole turns or parts. */
export interface CompactionPlan {
  fromSeq: number;
  throughSeq: number;
  turns: number;
  messages: HistoryMessage[];
  /** The end was moved to an earlier message so as not to split a tool call from its result. */
  shifted: boolean;
}

export type CompactionPlanResult = { plan: CompactionPlan } | { refused: string };

/** The turns of `messages` as index ranges [start, end): consecutive messages of one run. */
export function turnsOf(messages: readonly HistoryMessage[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < messages.length; ) {
    let end = i + 1;
    const runId = messages[i]!.runId;
    while (runId !== null && end < messages.length && messages[end]!.runId === runId) end++;
    out.push([i, end]);
    i = end;
  }
  return out;
}

/**
 * Whether a boundary before index `at` separates a tool_use from its tool_result: some call
 * before it has its result at or after it (or a result before it answers a call after it).
 */
export function splitsToolCall(messages: readonly Message[], at: number): boolean {
  const before = new Set<string>();
  for (let i = 0; i < at; i++) for (const block of messages[i]!.content) if (block.type === "tool_use") before.add(block.id);
  const resultsBefore = new Set<string>();
  for (let i = 0; i < at; i++) for (const block of messages[i]!.content) if (block.type === "tool_result") resultsBefore.add(block.tool_use_id);
  for (let i = at; i < messages.length; i++) {
    for (const block of messages[i]!.content) {
      if (block.type === "tool_result" && before.has(block.tool_use_id)) return true;
      if (block.type === "tool_use" && resultsBefore.has(block.id)) return true;
    }
  }
  return false;
}

export function planCompaction(messages: readonly HistoryMessage[], options: CompactionPlanOptions): CompactionPlanResult {
  const after = options.after ?? 0;
  const turns = turnsOf(messages);
  const eligible = turns.slice(0, Math.max(0, turns.length - options.keepRecentTurns)).filter(([start]) => messages[start]!.seq > after);
  if (eligible.length === 0) return { refused: `no turn to compact: the conversation has ${turns.length} turn${turns.length === 1 ? "" : "s"}, the latest ${options.keepRecentTurns} are kept (compaction.keep_recent_turns)` };
  const start = eligible[0]![0];
  let last = eligible.length - 1;
  // The newest turns leave the range until what remains can be summarised in one call.
  while (last > 0 && options.fits !== undefined && !options.fits(messages.slice(start, eligible[last]![1]))) last--;
  const intended = eligible[last]![1];
  let end = intended;
  while (end > start && splitsToolCall(messages, end)) end--;
  // The range may not begin inside a call either (a call made before `after` whose result follows).
  if (end <= start || splitsToolCall(messages, start)) {
    return { refused: `every boundary between seq ${messages[start]!.seq} and ${messages[intended - 1]!.seq} would split a tool call from its result` };
  }
  const range = messages.slice(start, end);
  return {
    plan: {
      fromSeq: range[0]!.seq,
      throughSeq: range.at(-1)!.seq,
      turns: turnsOf(range).length,
      messages: range,
      shifted: end !== intended,
    },
  };
}
