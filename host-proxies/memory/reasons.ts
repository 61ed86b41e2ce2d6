/**
 * The stable reason codes of memory denials raised outside the grant matcher (whose own code,
 * `scope-not-allowed`, lives in runtime/policy/catalogue/memory.ts).
 */
import { HostProxyError } from "../types.js";

/** The capability every memory call needs (`grants.memory` in a manifest). */
export const MEMORY_CAPABILITY = "memory";

export const MEMORY_DENIAL_REASONS = {
  /** A write from a tool its plugin declares read-only (risk `safe`): such a tool may be run without approval. */
  readOnlyTool: "read-only-tool",
} as const;

export type MemoryDenialReason = (typeof MEMORY_DENIAL_REASONS)[keyof typeof MEMORY_DENIAL_REASONS];

export function memoryDenied(reason: MemoryDenialReason, message: string): HostProxyError {
  return HostProxyError.denied(MEMORY_CAPABILITY, reason, message);
}
