/** Standing approvals of patterns over a tool's arguments, with an expiry (DESIGN: Policy). */
export { patternChoices, summarise } from "./choices.js";
export type { PatternChoice, PatternSpec } from "./choices.js";
export { checkWithinGrant } from "./grant.js";
export { matchArguments } from "./glob.js";
export { MAX_PATTERN_MS } from "./store.js";
export { DURATION_FORMS, durationExpiry, serverZone } from "./duration.js";
export type { PatternExpiry } from "./duration.js";
export type { ApprovalPattern, CreatePatternInput, ListPatternsOptions, PatternMatch, PatternStatus } from "./store.js";
