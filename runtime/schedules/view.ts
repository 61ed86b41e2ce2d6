import type { FiringRecord, ScheduleRecord } from "./records.js";

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** A schedule as the API and `clawhive schedule --json` show it: snake_case, times in ISO 8601. */
export function scheduleView(s: ScheduleRecord): Record<string, unknown> {
  return {
    id: s.id,
    agent: s.agent,
    kind: s.kind,
    at: iso(s.at),
    cron: s.cron,
    timezone: s.timezone,
    task: s.task,
    tool_calls: s.toolCalls,
    grants: s.capturedGrants,
    until: iso(s.until),
    max_runs: s.maxRuns,
    runs_so_far: s.runsSoFar,
    next_at: iso(s.nextAt),
    status: s.status,
    created_at: iso(s.createdAt),
    ended_at: iso(s.endedAt),
    created_by: s.createdByAgent === null ? null : { agent: s.createdByAgent, run: s.createdByRun },
  };
}

export function firingView(f: FiringRecord): Record<string, unknown> {
  return { due_at: iso(f.dueAt), status: f.status, run_id: f.runId, error: f.error, node: f.node, at: iso(f.at) };
}
