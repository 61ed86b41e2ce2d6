/** Parsing of untrusted bytes off the main thread, under a deadline and a heap cap. */
export { PARSE_LIMITS, ParsePool, sharedParsePool } from "./pool.js";
export type { ParsePoolOptions } from "./pool.js";
export type { JobKind, JobMap } from "./protocol.js";
