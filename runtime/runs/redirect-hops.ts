/**
 * Redirect hops of the http proxy, as the run sees them: each is decided like a first request,
 * and each one refused is a `denied` record of its own (the fetch's outcome alone would say
 * only that the call failed).
 */
import type { HopRefusal, HttpHop } from "../../host-proxies/http/index.js";
import type { Denial } from "../../host-proxies/types.js";
import { decideHostCall } from "../policy/engine.js";
import type { AuditLog } from "../audit/index.js";
import type { CallingTool } from "../policy/engine.js";
import { hostCallSubject, type HostCallSource } from "./host-call-subject.js";

/** What deciding and recording a hop needs of the host context (a narrow view of its options). */
export interface HopContext extends HostCallSource {
  active: () => (ReturnType<HostCallSource["active"]> & { tool: CallingTool; risk: string }) | undefined;
  audit: Pick<AuditLog, "appendDenial">;
}

/** Every redirect hop is decided like a first request: each layer, each time. */
export function checkHop(options: HopContext, hop: HttpHop): Denial | undefined {
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
export async function auditRefusedHop(options: HopContext, refusal: HopRefusal): Promise<void> {
  await options.audit.appendDenial({
    ...hostCallSubject(
      options,
      { proxy: "http", fn: "fetch", args: { fn: "fetch", method: refusal.method, url: refusal.to, redirect: { index: refusal.index, from: refusal.from } }, capability: "http.fetch" },
      null,
    ),
    denial: refusal.denial,
  });
}
