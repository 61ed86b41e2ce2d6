/**
 * The stable reason codes of kv denials. Operators, the policy engine and tests match on these
 * strings, so they never change meaning. The grant matcher's own code (`namespace-not-allowed`)
 * lives in runtime/policy/catalogue/kv.ts.
 */
import { HostProxyError } from "../types.js";

/** The capability every kv call needs (`grants.kv` in a manifest). */
export const KV_CAPABILITY = "kv";

export const KV_DENIAL_REASONS = {
  /** A set would bring the namespace's key and value bytes past its quota. */
  quotaExceeded: "quota-exceeded",
  /** One value larger than the proxy's per-value cap, whatever the quota has left. */
  valueTooLarge: "value-too-large",
} as const;

export type KvDenialReason = (typeof KV_DENIAL_REASONS)[keyof typeof KV_DENIAL_REASONS];

export function kvDenied(reason: KvDenialReason, message: string): HostProxyError {
  return HostProxyError.denied(KV_CAPABILITY, reason, message);
}
