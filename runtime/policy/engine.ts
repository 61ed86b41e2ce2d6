import type { Denial } from "../../host-proxies/types.js";
import type { PluginManifest, Risk } from "../plugins/manifest.js";
import {
  capabilityMatches,
  defaultRisks,
  effectiveRisk,
  type CapabilityGrant,
  type CapabilityName,
  type RiskDecision,
  type RiskOverride,
} from "./catalogue/index.js";
import { isDenial, type CapabilityRequest } from "./host-call-request.js";
import { resourceRequests } from "./resource-args.js";

/**
 * Every layer a host call must satisfy at once (DESIGN: Policy). Each is checked on its own and
 * the results are ANDed: grants are never intersected as sets.
 */
export interface PolicyLayers {
  agent: { name: string; grants: CapabilityGrant };
  /** The task's narrower request; absent means the task asked for the agent's whole grant. */
  task?: CapabilityGrant | undefined;
  /** Effective grants of the ancestors of a sub-agent run, nearest first. */
  parents?: ReadonlyArray<{ name: string; grants: CapabilityGrant }>;
  /**
   * A step-level elevation: restores, for one step, what the task narrowed away. Validated at
   * creation to lie within the agent's grant; it never reaches past the agent or plugin layers.
   */
  elevation?: CapabilityGrant | undefined;
}

/** The tool whose execution made the host call. */
export interface CallingTool {
  plugin: PluginManifest;
  name: string;
  /** The capabilities the tool declared in `describe`. */
  capabilities: readonly string[];
}

export type HostCallDecision =
  | { kind: "allow"; capability: CapabilityName; risk: Risk }
  | { kind: "deny"; denial: Denial }
  /** An Unsafe effect: allowed by every layer, but each one needs its own approval. */
  | { kind: "approval-required"; capability: CapabilityName; risk: Risk };

/**
 * Decides one host call. Pure: no store, no clock; approvals and audit are the caller's.
 */
export function decideHostCall(layers: PolicyLayers, tool: CallingTool, request: CapabilityRequest): HostCallDecision {
  const { capability } = request;
  const deny = (reason: string, message: string): HostCallDecision => ({ kind: "deny", denial: { capability, reason, message } });
  if (!tool.plugin.capabilities.includes(capability)) {
    return deny("not-declared-by-plugin", `plugin ${tool.plugin.name} does not declare ${capability} in its manifest`);
  }
  if (!tool.capabilities.includes(capability)) {
    return deny("not-declared-by-tool", `tool ${tool.plugin.name}.${tool.name} does not declare ${capability}`);
  }
  const checks: Array<{ grant: CapabilityGrant | undefined; absent: string; who: string }> = [
    { grant: layers.agent.grants, absent: "not-granted", who: `agent ${layers.agent.name}` },
  ];
  if (layers.task) {
    // The elevation stands in for the task layer for its step: it can restore what the task
    // narrowed away, never what the agent lacks (the agent layer is still checked above).
    checks.push({ grant: layers.elevation ?? layers.task, absent: "narrowed-by-task", who: layers.elevation ? "the step's elevation" : "the task" });
  }
  for (const parent of layers.parents ?? []) {
    checks.push({ grant: parent.grants, absent: "not-granted-to-parent", who: `parent agent ${parent.name}` });
  }
  for (const check of checks) {
    const resource = check.grant?.[capability];
    if (resource === undefined) return deny(check.absent, `${check.who} is not granted ${capability}${writableHint(capability, check.grant)}`);
    if (request.request !== null) {
      const decision = capabilityMatches(capability, resource as never, request.request as never);
      if (!decision.allow) return { kind: "deny", denial: decision.denial };
    }
  }
  const risk = defaultRisks([capability])[capability] ?? "unsafe";
  return risk === "unsafe" ? { kind: "approval-required", capability, risk } : { kind: "allow", capability, risk };
}

/**
 * A write refused where the layer mounts folders read-only only (fs.read, no fs.write): how to
 * mount one writable, so the fix is in the message rather than in the docs.
 */
function writableHint(capability: string, grant: CapabilityGrant | undefined): string {
  const mounts = capability === "fs.write" ? grant?.["fs.read"]?.mounts : undefined;
  if (mounts === undefined || mounts.length === 0) return "";
  const guest = mounts[0]!.guest;
  return `: its mounts (${mounts.map((m) => m.guest).join(", ")}) are read-only; to write there mount it read-write: --mount ${guest}=DIR:rw (clawhive call), or list it under the agent's grants.fs.write.mounts`;
}

/**
 * Why no host call of `tool` could be allowed in this run, or `undefined`: every capability the
 * tool declares is missing from some layer (plugin manifest, agent, task or elevation, an
 * ancestor) — the denial of the first one, in the words a host call would get. A tool that
 * declares no capability is never unreachable (it computes only). Asked before a person is asked
 * to approve a Guarded ToolCall: nobody should approve what the policy would refuse anyway. With
 * `input`, the resources its arguments name are decided too (`refusedResource`).
 */
export function unreachableTool(layers: PolicyLayers, tool: CallingTool, options: { input?: unknown } = {}): Denial | undefined {
  let first: Denial | undefined;
  for (const capability of tool.capabilities) {
    const decision = decideHostCall(layers, tool, { capability: capability as CapabilityName, request: null, canonical: {} });
    if (decision.kind !== "deny") return options.input === undefined ? undefined : refusedResource(layers, tool, options.input);
    first ??= decision.denial;
  }
  return first;
}

/**
 * The denial of the first resource the call's arguments name (resource-args.ts) that some
 * layer refuses, in the words its host call would get; `undefined` when each is allowed or
 * cannot be known before the call runs. A person is never asked to approve a call to
 * `https://evil.example/` when the grant names only `api.example.com`.
 */
export function refusedResource(layers: PolicyLayers, tool: CallingTool, input: unknown): Denial | undefined {
  for (const request of resourceRequests(tool.plugin, tool.name, input)) {
    if (isDenial(request)) return request;
    const decision = decideHostCall(layers, tool, request);
    if (decision.kind === "deny") return decision.denial;
  }
  return undefined;
}

/**
 * A tool's risk: the highest of its capabilities' defaults, the plugin's per-tool risk and the
 * agent's raise; lowered only by an acknowledged override in the agent manifest.
 */
export function toolRisk(tool: CallingTool, options: { agentOverride?: RiskOverride | undefined } = {}): RiskDecision {
  return effectiveRisk({
    capabilityDefaults: defaultRisks(tool.capabilities),
    pluginToolRisk: tool.plugin.tools[tool.name]?.risk,
    agentOverride: options.agentOverride,
  });
}
