export { createLogger, LOG_LEVELS, maskSecrets, REDACTED, runtimeLogger, setRuntimeLogger } from "./logger.js";
export type { LogFormat, LogLevel, LogOptions, Logger } from "./logger.js";
export { contextLogFields, withLogFields } from "./context.js";
export type { LogFields } from "./context.js";
