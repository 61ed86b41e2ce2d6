/** Context: the system prompt's zones, token counts, the budget, and tool results as text. */
export { buildSystemPrompt, ZONE_ORDER } from "./system-prompt.js";
export type { PromptZones, ZoneName } from "./system-prompt.js";
export { countMessageTokens, countTextTokens, countTokens, countToolTokens } from "./tokens.js";
export type { TokenCounter } from "./tokens.js";
export { DEFAULT_HEAD_TAIL, fitRequest, fitToBudget } from "./budget.js";
export type { FitOptions, FitRequestOptions, FitResult, HeadTail } from "./budget.js";
export { encodeToolResult, isUniformTable } from "./tool-result.js";
export type { EncodedToolResult } from "./tool-result.js";
