/** `clawhive:host/log`: a run's log lines, size- and rate-limited. */
export { createLogProxy, logHostFunctions, LOG_LEVELS } from "./proxy.js";
export type { LogLevel, LogLine, LogProxy, LogProxyOptions } from "./proxy.js";
export { createLineBudget } from "./budget.js";
export type { LineBudget, LineBudgetOptions } from "./budget.js";
