export { createLogger, LOG_LEVELS, maskSecrets, REDACTED, runtimeLogger, setRuntimeLogger } from "./logger.js";
export type { LogFormat, LogLevel, LogOptions, Logger } from "./logger.js";
