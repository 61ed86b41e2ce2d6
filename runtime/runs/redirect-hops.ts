/**
 * Redirect hops of the http proxy, as the run sees them: each is decided like a first request,
 * and each one refused is a `denied` record of its own (the fetch's outcome alone would say
 * only that the call failed).
 */
import type { HopRefusal, HttpHop } from "../../host-proxies/http/index.js";
import type { Denial } from "../../host-proxies/types.js";
import { decideHostCall } from "../policy/engine.js";
import type { HostContextOptions } from "./host-context.js";

/** Every redirect hop is decided like a first request: each layer, each time. */
export function checkHop(options: HostContextOptions, hop: HttpHop): Denial | undefined {
  const active = options.active();
  if (!active) return { capability: "http.fetch", reason: "no-tool-call", message: "the ToolCall ended during the request" };
  const decision = decideHostCall(options.layers, active.tool, {
    capability: "http.fetch",
    request: hop.request,
    canonical: { fn: "fetch", method: hop.canonical.method, url: hop.canonical.url },
  });
  if (decision.kind === "deny") return decision.denial;
  if (decision.kind === "approval-required" || active.risk === "unsafe") {
    // An Unsafe tool's effects are approved one by one: a redirect is a new effect nobody saw.
    return { capability: "http.fetch", reason: "approval-required", message: `the redirect to ${hop.canonical.url} would be a new effect; it was not approved` };
  }
  return undefined;
}

/** Records a refused hop as a denial of the host call that followed the redirect. */
export async function auditRefusedHop(options: HostContextOptions, refusal: HopRefusal): Promise<void> {
  const active = options.active();
  await options.audit.appendDenial({
    ...options.subject(),
    kind: "host_call",
    stepId: active?.stepId ?? null,
    plugin: active?.tool.plugin.name ?? null,
    tool: active?.qualifiedName ?? null,
    toolCall: active ? { id: active.toolCallId, name: active.qualifiedName } : null,
    hostCall: { proxy: "http", function: "fetch" },
    args: { fn: "fetch", method: refusal.method, url: refusal.to, redirect: { index: refusal.index, from: refusal.from } },
    requestedCapabilities: ["http.fetch"],
    grantedCapabilities: Object.keys(options.layers.agent.grants),
    approvalRequired: false,
    approvalResult: null,
    denial: refusal.denial,
  });
}
