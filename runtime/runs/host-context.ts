import { hostCallSubject } from "./host-call-subject.js";
import type { ShellProxy } from "../../host-proxies/shell/index.js";
import { MEMORY_DENIAL_REASONS } from "../../host-proxies/memory/index.js";
import { HostProxyError, type Denial, type HostCall, type HostCallHandler, type HostCallResult } from "../../host-proxies/types.js";
import type { AuditSubject, OutcomeInput } from "../audit/index.js";
import { fenceRefused } from "./fence.js";
import { decideHostCall } from "../policy/engine.js";
import { hostCallRequest, isDenial, type CapabilityRequest } from "../policy/host-call-request.js";
import { riskAbove } from "../policy/catalogue/index.js";
import { bindProxies } from "./host-tables.js";
import { bulkSummary } from "./bulk-summary.js";
import { durabilityOf } from "../../host-proxies/durability.js";
import { openHostCallRecord } from "./host-call-records.js";
import { servePluginConfig } from "./plugin-config.js";
import type { ActiveToolCall, HostContextOptions } from "./host-context-types.js";

export type { ActiveToolCall, HostContextOptions, PluginConfigOptions, RunStopped } from "./host-context-types.js";

/** The audit subject of a ToolCall record (its intent, outcome, or the denial that paused it). */
export function toolCallSubject(
  base: Omit<AuditSubject, "kind">,
  call: { active: ActiveToolCall; input: unknown; granted: readonly string[]; approvalResult: string | null },
): AuditSubject {
  const { active } = call;
  return {
    ...base,
    kind: "tool_call",
    stepId: active.stepId,
    plugin: active.tool.plugin.name,
    tool: active.qualifiedName,
    toolCall: { id: active.toolCallId, name: active.qualifiedName },
    args: call.input as never,
    requestedCapabilities: active.tool.capabilities as string[],
    grantedCapabilities: [...call.granted],
    approvalRequired: call.approvalResult !== null,
    approvalResult: call.approvalResult,
  };
}

export interface HostContext {
  handler: HostCallHandler;
  /**
   * Resolves once every host call in flight now has been served (its outcome queued on the
   * audit log), or after `timeoutMs`, whichever is first. A guest call that was stopped (its
   * instance ended by a cancel or a timeout) returns while its host call may still be acting.
   */
  served(timeoutMs: number): Promise<void>;
  /** Closes the instance's handles (mount roots). Its host calls fail afterwards. */
  close(): Promise<void>;
}

/**
 * The host side of one instance: proxies built when the instance is bound (mount handles opened
 * now, fixed for the instance's life), and a handler that, for every host call, canonicalises,
 * asks the policy, records the decision, and only then acts on the same canonical value.
 */
export async function createHostContext(options: HostContextOptions): Promise<HostContext> {
  const { tables, fsProxy, shellProxy, scheduleProxy } = await bindProxies(options);
  let closed = false;
  const inFlight = new Set<Promise<unknown>>();

  const serve = async (call: HostCall, active: ActiveToolCall | undefined): Promise<{ result: HostCallResult; capability: string; approvalRequired: boolean }> => {
    // An instance without a schedule proxy belongs to an agent not granted `schedule`: the
    // agent layer refuses whatever count is given.
    const liveSchedules = call.iface === "schedule" && call.fn === "create" ? ((await scheduleProxy?.liveCount()) ?? 0) : undefined;
    const request = hostCallRequest(call, { ...(liveSchedules === undefined ? {} : { liveSchedules }), ...(active ? { toolCapabilities: active.tool.capabilities } : {}) });
    if (isDenial(request)) return { ...(await deny(options, call, undefined, request)), capability: request.capability };
    if (closed || !active) {
      const denial = { capability: request.capability, reason: "no-tool-call", message: "host calls are served only during a tool call of a live run" };
      return { ...(await deny(options, call, request, denial)), capability: request.capability };
    }
    const decision = decideHostCall(options.layers, active.tool, request);
    if (decision.kind === "deny") return { ...(await deny(options, call, request, decision.denial)), capability: request.capability };
    const unsafe = decision.kind === "approval-required" || (active.risk === "unsafe" && riskAbove(decision.risk, "safe"));
    // What the proxy itself would refuse (an unknown command, a dangerous option) is refused
    // now: a person is never asked to approve an effect that could not run.
    const refused = precheck(call, shellProxy) ?? readOnlyWrite(call, active);
    if (refused) return { ...(await deny(options, call, request, refused)), capability: request.capability };
    // kv is Safe as a capability, yet its set and delete change what the next run reads.
    const effect = unsafe || riskAbove(decision.risk, "safe") || (call.iface === "kv" && (call.fn === "set" || call.fn === "delete"));
    // A cancel recorded on any node stops the run before its next effect, not only before its
    // next ToolCall (the store is asked: this node's memory may not know of it). The fence asks
    // it in the intent's own transaction; an Unsafe effect is also asked about first, so that no
    // person is asked to approve an effect of a run that may make none.
    const stopped = effect ? await options.stopped?.({ fenced: !unsafe && options.fence !== undefined }) : undefined;
    if (stopped !== undefined) return { ...(await deny(options, call, request, { capability: request.capability, ...stopped })), capability: request.capability };
    const approved = unsafe ? await options.approveEffect({ active, capability: request.capability, canonical: request.canonical }) : true;
    // No approval can be filed for it (over the size cap): refused, never waited on.
    if (typeof approved === "object") return { ...(await deny(options, call, request, approved)), capability: request.capability };
    if (!approved) {
      const denial = {
        capability: request.capability,
        reason: "approval-required",
        message: `this ${request.capability} effect needs a person's approval; the run pauses until it is decided`,
      };
      return { ...(await deny(options, call, request, denial, true)), capability: request.capability, approvalRequired: true };
    }
    const fns = tables[call.iface];
    const fn = fns?.[call.fn];
    if (!fn) {
      const denial = { capability: request.capability, reason: "not-granted", message: `no ${call.iface} proxy is bound to this instance` };
      return { ...(await deny(options, call, request, denial)), capability: request.capability };
    }
    // An effect's intent (and the ToolCall's) is durable before the effect, or the effect does
    // not happen (a rejection here refuses the call, see the handler); a read's records are
    // queued and made durable before the ToolCall's result is released.
    const durability = effect ? "effect" : durabilityOf(call.iface, call.fn);
    let record;
    try {
      record = await openHostCallRecord(options.audit, subject(options, call, request, unsafe ? (typeof approved === "string" ? approved : "approved") : null), { durability, active, guard: effect ? options.fence?.() : undefined });
    } catch (error) {
      if (!fenceRefused(error)) throw error;
      // Cancelled, ended or taken over after the check above: the store refused the intent in
      // its own transaction, so the effect is not made. The check now says which it was.
      const why = (await options.stopped?.()) ?? { reason: "run-cancelled" as const, message: "the run may make no further effect here" };
      return { ...(await deny(options, call, request, { capability: request.capability, ...why })), capability: request.capability };
    }
    if (effect) options.onEffect?.(active, request.capability);
    let result: HostCallResult;
    try {
      result = { ok: true, value: await fn(call.args) };
    } catch (error) {
      result = { ok: false, error: error instanceof HostProxyError ? error.hostError : { tag: "io", val: "host call failed" } };
    }
    // The outcome is queued, not awaited: only an effect's intent must precede it. It is
    // tracked on the ToolCall, whose result waits for it (and is withheld if it fails).
    record.settle(outcomeOf(result, call));
    return { result, capability: request.capability, approvalRequired: unsafe };
  };

  const handler: HostCallHandler = async (call) => {
    if (overBudget(options, call)) return { ok: true, value: undefined };
    const started = performance.now();
    const active = options.active();
    // A record of this ToolCall that could not be written: its result is withheld at its end.
    const unrecorded = (error: unknown): HostCallResult => {
      active?.records?.fail(error);
      return { ok: false, error: { tag: "io", val: "the call could not be recorded, so it was not made" } };
    };
    if (call.iface === "config") {
      const result = await servePluginConfig(options, closed ? undefined : options.pluginConfig, call).catch(unrecorded);
      options.onHostCall?.({ call, capability: "config", result, approvalRequired: false, durationMs: performance.now() - started });
      return result;
    }
    let served: { result: HostCallResult; capability: string; approvalRequired: boolean };
    try {
      served = await serve(call, active);
    } catch (error) {
      // The audit write failed (or the policy threw): refuse rather than act unrecorded.
      served = { result: unrecorded(error), capability: call.iface, approvalRequired: false };
    }
    options.onHostCall?.({ call, ...served, durationMs: performance.now() - started });
    // log.write returns nothing in WIT, so no error can be lowered to the guest (it would
    // trap): a refused line is dropped; the refusal is in the audit log all the same.
    if (call.iface === "log" && !served.result.ok) return { ok: true, value: undefined };
    return served.result;
  };

  return {
    handler: (call) => {
      const serving = handler(call);
      inFlight.add(serving);
      void serving.finally(() => inFlight.delete(serving)).catch(() => {});
      return serving;
    },
    served: async (timeoutMs) => {
      if (inFlight.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
      await Promise.race([Promise.allSettled([...inFlight]), late]);
      clearTimeout(timer);
    },
    close: async () => {
      closed = true;
      await fsProxy?.close();
      await shellProxy?.close();
    },
  };
}

/**
 * Whether `call` is a log line over the run's budget: dropped unrecorded but counted on its
 * ToolCall, so a flood costs one audit row (the count) instead of one per line. Outside a
 * ToolCall the line goes on to be refused and audited like any host call.
 */
function overBudget(options: HostContextOptions, call: HostCall): boolean {
  if (call.iface !== "log" || call.fn !== "write" || !options.logBudget) return false;
  const active = options.active();
  if (!active || options.logBudget.take()) return false;
  active.droppedLogLines = (active.droppedLogLines ?? 0) + 1;
  return true;
}

/** The proxy's own refusal of a call, before any approval is asked for; undefined if none. */
function precheck(call: HostCall, shell: ShellProxy | undefined): Denial | undefined {
  if (call.iface !== "shell" || !shell) return undefined;
  try {
    shell.canonicalize(call.args[0] as Parameters<ShellProxy["canonicalize"]>[0]);
    return undefined;
  } catch (error) {
    if (error instanceof HostProxyError) {
      const e = error.hostError;
      return e.tag === "denied" ? e.val : { capability: "shell.exec", reason: e.tag, message: e.val };
    }
    return { capability: "shell.exec", reason: "invalid-input", message: "shell.exec: the request could not be read" };
  }
}

/**
 * A memory write from a tool its plugin declares read-only (risk `safe`) is refused: such a tool
 * may be lowered to Safe and run without approval, so it must not reach the Guarded write.
 */
function readOnlyWrite(call: HostCall, active: ActiveToolCall): Denial | undefined {
  if (call.iface !== "memory" || call.fn !== "write") return undefined;
  const tool = active.tool;
  if (tool.plugin.tools[tool.name]?.risk !== "safe") return undefined;
  return {
    capability: "memory",
    reason: MEMORY_DENIAL_REASONS.readOnlyTool,
    message: `${tool.plugin.name}.${tool.name} is declared read-only (risk safe) by its plugin; memory writes go through a Guarded tool`,
  };
}

async function deny(
  options: HostContextOptions,
  call: HostCall,
  request: CapabilityRequest | undefined,
  denial: Denial,
  approvalRequired = false,
): Promise<{ result: HostCallResult; approvalRequired: boolean }> {
  await options.audit.appendDenial({ ...subject(options, call, request, null), approvalRequired, denial });
  return { result: { ok: false, error: { tag: "denied", val: denial } }, approvalRequired };
}

function subject(options: HostContextOptions, call: HostCall, request: CapabilityRequest | undefined, approvalResult: string | null): AuditSubject {
  return hostCallSubject(options, { proxy: call.iface, fn: call.fn, args: request?.canonical ?? { fn: call.fn }, capability: request?.capability }, approvalResult);
}

function outcomeOf(result: HostCallResult, call: HostCall): OutcomeInput {
  if (result.ok) {
    const value = result.value;
    const size = value instanceof Uint8Array ? value.byteLength : value === undefined ? 0 : JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v)).length;
    const summary = bulkSummary(call, value);
    return { status: "ok", resultSize: size, ...(summary === undefined ? {} : { summary }) };
  }
  // The proxy's own refusal met at the effect (a symlink, a hard link, a size cap) is a
  // refusal on record, not a failure: same status as the policy's.
  if (result.error.tag === "denied") return { status: "denied", denial: result.error.val, error: { code: "denied", message: result.error.val.message } };
  return { status: "error", error: { code: result.error.tag, message: result.error.val } };
}
