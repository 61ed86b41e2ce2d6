/** The schedules room: one-shot and cron schedules that start runs, exactly once across nodes. */
export { firingRunId, Scheduler } from "./scheduler.js";
export type { ScheduledRunInput, SchedulerOptions, TickReport } from "./scheduler.js";
export { buildSchedule, MAX_RUNS_LIMIT } from "./build.js";
export type { CreateScheduleInput } from "./build.js";
export { scheduleMigrations } from "./migrations.js";
export { ScheduleRecords } from "./records.js";
export type { FiringRecord, FiringStatus, ScheduledToolCall, ScheduleListOptions, ScheduleKind, ScheduleRecord, ScheduleStatus } from "./records.js";
export { checkCron, nextCronTime } from "./cron.js";
export { openRuntimeScheduler } from "./for-runtime.js";
export { firingView, scheduleView } from "./view.js";
