/**
 * The history a model sees once parts of it are compacted: each active compaction's messages
 * leave the message list and its summary joins the `history` zone of the system prompt, in
 * order and naming the messages it stands for. The messages themselves stay in the store.
 */
import type { Message } from "../model.js";
import type { HistoryMessage } from "./plan.js";

/** A stored compaction as the view needs it. */
export interface CompactedRange {
  n: number;
  fromSeq: number;
  throughSeq: number;
  summary: string;
}

export interface CompactedView {
  messages: Message[];
  /** The history zone's items, one per active compaction (empty: no zone). */
  zone: string[];
}

export function compactedView(history: readonly HistoryMessage[], active: readonly CompactedRange[]): CompactedView {
  const inRange = (seq: number) => active.some((c) => seq >= c.fromSeq && seq <= c.throughSeq);
  const messages = history.filter((m) => !inRange(m.seq)).map(({ role, content }) => ({ role, content }));
  const zone = [...active]
    .sort((a, b) => a.fromSeq - b.fromSeq)
    .map((c) => `Summary of earlier messages ${c.fromSeq}–${c.throughSeq} of this conversation (compaction ${c.n}):\n${c.summary}`);
  return { messages, zone };
}
