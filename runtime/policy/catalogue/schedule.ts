/** `schedule`: create schedules that start runs of the named agents later, up to a count. */
import * as v from "valibot";
import { strictObject } from "./strict.js";
import { namesCover } from "./glob.js";
import { AgentNameListSchema } from "./names.js";
import type { CapabilityEntry, Coverage, Decision } from "./types.js";
import { ALLOW, deny, firstUncovered, notCovered, COVERED } from "./types.js";

const ScheduleResourceSchema = strictObject({
  max_schedules: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)),
  agents: v.pipe(AgentNameListSchema, v.minLength(1, "expected at least one agent name")),
});
export type ScheduleResource = v.InferOutput<typeof ScheduleResourceSchema>;

/** A new schedule for `agent`, when `existing` schedules made under this grant are live. */
export interface ScheduleRequest {
  agent: string;
  existing: number;
}

function scheduleCovers(outer: ScheduleResource, inner: ScheduleResource): Coverage {
  return firstUncovered(
    () => (inner.max_schedules <= outer.max_schedules ? COVERED : notCovered("max_schedules", `must be at most ${outer.max_schedules}`)),
    () => namesCover(outer.agents, inner.agents, "agents"),
  );
}

function scheduleMatches(grant: ScheduleResource, request: ScheduleRequest): Decision {
  if (!grant.agents.includes(request.agent)) {
    return deny("schedule", "agent-not-allowed", `agent ${JSON.stringify(request.agent)} may not be scheduled`);
  }
  if (request.existing >= grant.max_schedules) {
    return deny("schedule", "schedule-limit", `already ${request.existing} schedules; the grant allows ${grant.max_schedules}`);
  }
  return ALLOW;
}

export const schedule: CapabilityEntry<ScheduleResource, ScheduleRequest> = {
  name: "schedule",
  description: "Create schedules that start runs of the named agents later.",
  resource: ScheduleResourceSchema,
  defaultRisk: "guarded",
  riskReason: "a schedule acts later with nobody watching, and outlives the run that made it",
  covers: scheduleCovers,
  matches: scheduleMatches,
};
