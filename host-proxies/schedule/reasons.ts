/**
 * The stable reason codes of schedule denials. Operators, the policy engine and tests match on
 * these strings, so they never change meaning. The grant matcher's own codes
 * (`agent-not-allowed`, `schedule-limit`) live in runtime/policy/catalogue/schedule.ts; the
 * proxy raises `schedule-limit` too, when the limit is passed between the decision and the write.
 */
import { HostProxyError } from "../types.js";

/** The capability every schedule call needs (`grants.schedule` in a manifest). */
export const SCHEDULE_CAPABILITY = "schedule";

export const SCHEDULE_DENIAL_REASONS = {
  /** The grant the schedule would capture is not covered by every layer of the creating run. */
  widerThanCreator: "wider-than-creator",
  /** The agent already has as many active schedules as the tightest layer allows. */
  scheduleLimit: "schedule-limit",
} as const;

export type ScheduleDenialReason = (typeof SCHEDULE_DENIAL_REASONS)[keyof typeof SCHEDULE_DENIAL_REASONS];

export function scheduleDenied(reason: ScheduleDenialReason, message: string): HostProxyError {
  return HostProxyError.denied(SCHEDULE_CAPABILITY, reason, message);
}
