/** `clawhive:host/schedule`: schedules an agent's runs create, never wider than the run that made them. */
export { createScheduleProxy } from "./proxy.js";
export type { CreatorLayer, ScheduleProxy, ScheduleProxyOptions } from "./proxy.js";
export { scheduleHostFunctions, SCHEDULE_HOST_FUNCTION_NAMES } from "./host-functions.js";
export type { ScheduleHostFunctionName } from "./host-functions.js";
export { MAX_SCHEDULE_TASK_CHARS, parseScheduleSpec, scheduleInfo } from "./spec.js";
export type { ScheduleInfo, ScheduleSpec } from "./spec.js";
export { SCHEDULE_CAPABILITY, SCHEDULE_DENIAL_REASONS, scheduleDenied } from "./reasons.js";
export type { ScheduleDenialReason } from "./reasons.js";
