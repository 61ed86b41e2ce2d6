/** `clawhive:host/memory`: search and write long-term memory in the scopes a run is granted. */
export { agentMemoryBinding, createMemoryProxy, scopeStorage, MAX_EPISODE_BYTES, MAX_MEMORY_K, MAX_QUERY_CHARS, MAX_TITLE_CHARS, SHARED_MEMORY_OWNER } from "./proxy.js";
export type { AgentMemoryBinding, MemoryProxy, MemoryProxyOptions, MemorySearchOptions, MemoryWriteOptions, WireHit } from "./proxy.js";
export { memoryHostFunctions, MEMORY_HOST_FUNCTION_NAMES } from "./host-functions.js";
export { canonicalScope, MAX_SCOPE_LENGTH } from "./scope.js";
export type { MemoryScope } from "./scope.js";
export { MEMORY_CAPABILITY, MEMORY_DENIAL_REASONS, memoryDenied } from "./reasons.js";
export type { MemoryDenialReason } from "./reasons.js";
