/**
 * The configuration room: one file (`clawhive.yaml` or JSON) plus environment variables and
 * flags, validated at start into a typed `ClawhiveConfig`.
 */
export { loadConfig } from "./load.js";
export type { LoadConfigOptions } from "./load.js";
export { runtimeOptionsFrom } from "./runtime-options.js";
export { configJsonSchema, renderConfigJsonSchema } from "./json-schema.js";
export { ConfigError, describeSource } from "./errors.js";
export type { ConfigIssue } from "./errors.js";
export { ENV_OVERRIDES, FLAG_OVERRIDES } from "./overrides.js";
export { DEFAULTS } from "./resolve.js";
export { formatListen, isLoopback } from "./listen.js";
export type { ListenAddress } from "./listen.js";
export type { ClawhiveConfig, ConfigSource } from "./types.js";
