/** `clawhive:host/kv`: one namespace of keys and values per agent and plugin, under a byte quota. */
export { createKvProxy, DEFAULT_MAX_VALUE_BYTES } from "./proxy.js";
export type { KvProxy, KvProxyOptions, KvUsage } from "./proxy.js";
export { kvHostFunctions, KV_HOST_FUNCTION_NAMES } from "./host-functions.js";
export type { KvHostFunctionName } from "./host-functions.js";
export { kvMigrations } from "./schema.js";
export { MAX_KV_KEY_BYTES } from "./key.js";
export { KV_CAPABILITY, KV_DENIAL_REASONS } from "./reasons.js";
export type { KvDenialReason } from "./reasons.js";
