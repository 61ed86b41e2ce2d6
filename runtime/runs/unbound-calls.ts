/**
 * Host calls a guest makes before its instance is bound to a run (while `describe` runs at
 * install or when the pool is filled) are refused by the sandbox; this puts each refusal on
 * record. A guest that loops on them costs a bounded number of rows: the first few per
 * instance, then one record with the count when the instance is destroyed.
 */
import type { AuditLog, AuditSubject } from "../audit/index.js";
import type { SandboxEvent } from "../sandbox/index.js";

/** Refusals recorded one by one per instance; the rest are counted. */
export const UNBOUND_CALLS_RECORDED = 8;

/** The subject of a refusal that belongs to no run: the instance stands in for one. */
function unboundSubject(event: { instanceId: number; plugin: string; iface: string; fn: string }): AuditSubject {
  return {
    kind: "host_call",
    traceId: "unbound",
    runId: `unbound-instance-${event.instanceId}`,
    agent: "-",
    plugin: event.plugin,
    hostCall: { proxy: event.iface, function: event.fn },
    args: { fn: event.fn },
    requestedCapabilities: [event.iface],
    grantedCapabilities: [],
  };
}

/** A sandbox event listener that records refused unbound host calls in `audit`. */
export function auditUnboundCalls(audit: AuditLog, options: { onError?: (error: Error) => void } = {}): (event: SandboxEvent) => void {
  const counts = new Map<number, { count: number; last: { instanceId: number; plugin: string; iface: string; fn: string } }>();
  const write = (subject: AuditSubject, message: string, reason = "unbound-instance") => {
    audit.appendDenial({ ...subject, denial: { capability: String(subject.hostCall?.proxy ?? "host"), reason, message } }).catch((error: unknown) => options.onError?.(error as Error));
  };
  return (event) => {
    if (event.type === "unbound-host-call") {
      const seen = counts.get(event.instanceId) ?? { count: 0, last: event };
      seen.count++;
      seen.last = event;
      counts.set(event.instanceId, seen);
      if (seen.count <= UNBOUND_CALLS_RECORDED) write(unboundSubject(event), `${event.iface}.${event.fn} from plugin ${event.plugin}: host calls are refused until the instance is bound to a run (e.g. while it describes its tools)`);
      return;
    }
    if (event.type === "instance-destroyed") {
      const seen = counts.get(event.instanceId);
      counts.delete(event.instanceId);
      if (seen && seen.count > UNBOUND_CALLS_RECORDED) {
        const more = seen.count - UNBOUND_CALLS_RECORDED;
        write({ ...unboundSubject(seen.last), args: { fn: seen.last.fn, refused: more } }, `${more} more host calls from plugin ${seen.last.plugin} were refused before its instance was bound (only the first ${UNBOUND_CALLS_RECORDED} are recorded one by one)`, "unbound-instance-count");
      }
    }
  };
}
