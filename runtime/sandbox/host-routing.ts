import type { Instance } from "./instance.js";
import type { HostRequest, HostResponse } from "./protocol.js";
import type { SandboxEvent } from "./types.js";

/**
 * Routes a guest's host call to the binding of the instance that made it. An instance not
 * bound to a run (pooled, describing, or already gone) gets a refusal, told as an event so the
 * runtime can audit it; the sandbox itself decides nothing else.
 */
export async function routeHostCall(instance: Instance | undefined, [instanceId, iface, fn, args]: HostRequest, onEvent: (event: SandboxEvent) => void): Promise<HostResponse> {
  const binding = instance?.state === "bound" ? instance.binding : undefined;
  if (!binding) {
    onEvent({ type: "unbound-host-call", instanceId, plugin: instance?.plugin.manifest.name ?? "?", iface, fn });
    return {
      ok: false,
      error: {
        tag: "denied",
        val: { capability: iface, reason: "unbound-instance", message: "host calls are refused until the instance is bound to a run" },
      },
    };
  }
  const result = await binding.handler({ iface, fn, args });
  return result.ok ? { ok: true, value: result.value } : { ok: false, error: result.error };
}
