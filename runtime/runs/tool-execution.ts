import { ClawhiveError, SandboxError } from "../errors.js";
import type { ApprovalError, Approval } from "../policy/approvals/index.js";
import type { Denial } from "../../host-proxies/types.js";
import { GuestToolError, type Instance, type SandboxPlugin } from "../sandbox/index.js";
import type { HostContextOptions } from "./host-context-types.js";
import { agentMemoryBinding, type MemoryProxyOptions } from "../../host-proxies/memory/index.js";
import type { RunServices, RunSetup } from "./run-setup.js";
import type { ToolCallError } from "./types.js";
import { GUEST_RESULT_JSON, parseBounded } from "../json/index.js";
import { cutText } from "./event-bounds.js";

/** How a ToolCall's execution ended: its output, its error, or the effect approval it waits for. */
export type Execution =
  | { ok: true; output: unknown; effectApproval?: undefined }
  | { ok: false; error: ToolCallError; effectApproval?: undefined }
  | { ok: false; effectApproval: Approval; error?: undefined };

/** Each agent and plugin gets its own namespace: two agents or two plugins never share data. */
export function kvOf(setup: RunSetup, services: RunServices, plugin: SandboxPlugin): { store: RunServices["store"]; namespace: string; quotaBytes: number } | undefined {
  const grant = setup.agent.grants.kv;
  if (!grant) return undefined;
  return { store: services.store, namespace: `${setup.agent.name}/${plugin.manifest.name}/${grant.namespace}`, quotaBytes: grant.quota_bytes };
}

/** The schedule proxy's part of the run: bound when the agent is granted `schedule` and the runtime has a scheduler. */
export function scheduleOf(setup: RunSetup, services: RunServices): HostContextOptions["schedule"] {
  const scheduler = services.scheduler?.();
  if (!setup.agent.grants.schedule || scheduler === undefined) return undefined;
  const { id, agent } = setup;
  return {
    scheduler,
    run: { id, agent: agent.name },
    ownerToken: async () => (await services.records.get(id))?.ownerToken ?? null,
    agents: services.agents ?? (async () => [agent]),
  };
}

/**
 * The `agent` memory scope of this run: owned by the root agent of the chain, written in the
 * chain's own partition, read there and in every ancestor's. Fixed here, never by the guest.
 */
export function memoryOf(setup: RunSetup, services: RunServices): MemoryProxyOptions | undefined {
  if (!setup.agent.grants.memory) return undefined;
  const chain = [...(setup.layers.parents ?? []).map((p) => p.name).reverse(), setup.agent.name];
  const runIds = [setup.id, ...(setup.ancestorRunIds ?? [])];
  const trust = services.memoryTrust;
  return { memory: services.memory, agent: agentMemoryBinding(chain), tainted: () => trust.tainted(runIds), markTainted: () => trust.mark(setup.id) };
}

/** The calendar ids the proxy may touch at all: read or add (each call is decided per capability). */
export function calendarsOf(grants: RunSetup["agent"]["grants"]): string[] | undefined {
  const ids = [...(grants["calendar.read"]?.calendars ?? []), ...(grants["calendar.add"]?.calendars ?? [])];
  return ids.length > 0 ? [...new Set(ids)] : undefined;
}

/**
 * The guest's result: JSON as a value, anything else as text. The sandbox already refuses JSON
 * beyond `GUEST_RESULT_JSON`; checked again here because the value is written out recursively
 * (audit, events, the model's messages) and a stack overflow there would strand the run.
 */
export function outputOf(text: string, instance: Instance): Execution {
  const parsed = parseBounded(text, GUEST_RESULT_JSON, { at: "result" });
  if (parsed.ok) return { ok: true, output: parsed.value };
  if (parsed.problem.code === "not-json") return { ok: true, output: text };
  instance.destroy("result refused");
  const kind = parsed.problem.code === "too-deep" ? "result-too-deep" : "result-too-many-values";
  return { ok: false, error: { kind, message: `the tool returned a result the runtime refuses: ${parsed.problem.message} (the instance was replaced)` } };
}

/**
 * The most of a tool's error message kept: a message says what went wrong, and one a plugin made
 * megabytes long would be copied into the model's messages, the outcome and the events.
 */
export const MAX_TOOL_ERROR_BYTES = 16 * 1024;

export function toToolCallError(error: unknown): ToolCallError {
  const found = toolCallErrorOf(error);
  const cut = (text: string) => cutText(text, MAX_TOOL_ERROR_BYTES);
  return { ...found, message: cut(found.message), ...(found.denial === undefined ? {} : { denial: { ...found.denial, message: cut(String(found.denial.message)) } }) };
}

function toolCallErrorOf(error: unknown): ToolCallError {
  if (error instanceof GuestToolError) {
    const payload = error.payload as { tag?: string; val?: unknown };
    const tag = typeof payload?.tag === "string" ? payload.tag : "failed";
    if (tag === "denied" && payload.val && typeof payload.val === "object") {
      const denial = payload.val as { capability: string; reason: string; message: string };
      return { kind: "denied", message: denial.message, denial };
    }
    return { kind: tag, message: typeof payload?.val === "string" ? payload.val : error.message };
  }
  if (error instanceof SandboxError) {
    const kinds: Record<string, string> = {
      plugin_trapped: "trapped",
      deadline_exceeded: "deadline",
      memory_cap: "memory-cap",
      result_too_large: "result-too-large",
      result_too_deep: "result-too-deep",
      result_too_many_values: "result-too-many-values",
      instance_lost: "instance-lost",
    };
    return { kind: kinds[error.code] ?? error.code, message: error.message };
  }
  if (error instanceof ClawhiveError) return { kind: error.code, message: error.message };
  return { kind: "failed", message: (error as Error).message ?? String(error) };
}

/** The denial of a call whose approval would be over the size cap (audited by the caller). */
export function approvalTooLarge(capabilities: readonly string[], error: ApprovalError): Denial {
  return { capability: capabilities.join(",") || "tool", reason: "approval-too-large", message: error.message };
}
