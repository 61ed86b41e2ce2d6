/** `log`: write lines to the run's log. No resource to match; the log proxy enforces the rate. */
import * as v from "valibot";
import { strictObject } from "./strict.js";
import type { CapabilityEntry, Coverage, Decision } from "./types.js";
import { ALLOW, COVERED, notCovered } from "./types.js";

const LogResourceSchema = strictObject({
  per_minute: v.pipe(v.optional(v.number(), 120), v.integer(), v.minValue(1), v.maxValue(100_000), v.description("lines per minute before the log proxy drops them")),
});
export type LogResource = v.InferOutput<typeof LogResourceSchema>;

/** Nothing to decide per call: any level, any text (the proxy caps and escapes it). */
export type LogRequest = Record<string, never>;

function logCovers(outer: LogResource, inner: LogResource): Coverage {
  return inner.per_minute <= outer.per_minute ? COVERED : notCovered("per_minute", `must be at most ${outer.per_minute}`);
}

function logMatches(): Decision {
  return ALLOW;
}

export const log: CapabilityEntry<LogResource, LogRequest> = {
  name: "log",
  description: "Write lines to the run's log, rate-limited.",
  resource: LogResourceSchema,
  defaultRisk: "safe",
  riskReason: "lines go only to the run's own size-capped log",
  covers: logCovers,
  matches: logMatches,
};
