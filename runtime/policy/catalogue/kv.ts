/** `kv`: one key-value namespace and a byte quota the kv proxy enforces. */
import * as v from "valibot";
import { strictObject } from "./strict.js";
import type { CapabilityEntry, Coverage, Decision } from "./types.js";
import { ALLOW, COVERED, deny, notCovered } from "./types.js";

const KvResourceSchema = strictObject({
  namespace: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9._-]{0,127}$/, "expected a namespace of lowercase letters, digits, '.', '_' or '-'")),
  quota_bytes: v.pipe(v.optional(v.number(), 1_048_576), v.integer("expected a whole number of bytes"), v.minValue(1), v.maxValue(1_073_741_824)),
});
export type KvResource = v.InferOutput<typeof KvResourceSchema>;

export interface KvRequest {
  namespace: string;
}

function kvCovers(outer: KvResource, inner: KvResource): Coverage {
  if (inner.namespace !== outer.namespace) return notCovered("namespace", `must be ${outer.namespace}`);
  if (inner.quota_bytes > outer.quota_bytes) return notCovered("quota_bytes", `must be at most ${outer.quota_bytes}`);
  return COVERED;
}

function kvMatches(grant: KvResource, request: KvRequest): Decision {
  if (request.namespace === grant.namespace) return ALLOW;
  return deny("kv", "namespace-not-allowed", `namespace ${JSON.stringify(request.namespace)} is not granted`);
}

export const kv: CapabilityEntry<KvResource, KvRequest> = {
  name: "kv",
  description: "Get, set and delete keys in one namespace, within a byte quota.",
  resource: KvResourceSchema,
  defaultRisk: "safe",
  riskReason:
    "the namespace is the agent's own scratch state, quota-capped: nothing outside clawhive changes, so per-call approval would only teach people to click yes",
  covers: kvCovers,
  matches: kvMatches,
};
