/** Compaction: which earlier turns a summary replaces, the summary call, and the history after. */
export { planCompaction, splitsToolCall, turnsOf } from "./plan.js";
export type { CompactionPlan, CompactionPlanOptions, CompactionPlanResult, HistoryMessage } from "./plan.js";
export { readSummary, summaryRequest, SUMMARY_MAX_CHARS, SUMMARY_RULES, transcriptBudget, transcriptOf } from "./summary.js";
export type { SummaryRequestOptions, SummaryResult } from "./summary.js";
export { compactedView } from "./view.js";
export type { CompactedRange, CompactedView } from "./view.js";
