/**
 * A fake host's functions as an AssemblyScript component's imports, and its `call` as the
 * sandbox reads it: shared by the harnesses of the plugins that load their built component.
 */
import type { HostError, HostImports } from "../files/fake-host.js";
import type { ToolsExport } from "../files/harness.js";
import type { LoadedComponent } from "./component.js";

/**
 * The component's tools as the tests call them: jco throws a returned `tool-error` as a
 * ComponentError's payload, as the sandbox's worker reads it, so the payload is what is thrown.
 */
export function toolsOf(loaded: LoadedComponent): ToolsExport {
  return {
    describe: () => loaded.tools.describe() as ReturnType<ToolsExport["describe"]>,
    call(name, input) {
      try {
        return loaded.tools.call(name, input);
      } catch (e) {
        if (e !== null && typeof e === "object" && "payload" in e && !(e instanceof WebAssembly.RuntimeError)) throw (e as { payload: unknown }).payload;
        throw e;
      }
    },
  };
}

/**
 * The fake's functions as the component's host: the canonical ABI carries only a well-formed
 * `host-error` into the guest, so whatever else a fake throws (a plain Error, a string, a
 * hostile object) reaches it as one, `io` unless it names a case; and a `none` jco lifts as a
 * present `undefined` field is dropped, at any depth, so the fake records requests as the host reads them.
 */
export function asHost(fns: HostImports[string]): Record<string, (arg: unknown) => unknown> {
  const host: Record<string, (arg: unknown) => unknown> = {};
  for (const [name, fn] of Object.entries(fns)) {
    host[name] = (arg: unknown) => {
      try {
        return (fn as (a: unknown) => unknown)(withoutUndefined(arg));
      } catch (e) {
        throw Object.assign(new Error("host call failed"), { payload: hostError(e) });
      }
    };
  }
  return host;
}

/** `arg` without its `undefined` fields, in nested records too (a calendar event's times). */
function withoutUndefined(arg: unknown): unknown {
  if (arg === null || typeof arg !== "object" || Array.isArray(arg)) return arg;
  return Object.fromEntries(Object.entries(arg).filter(([, v]) => v !== undefined).map(([k, v]) => [k, withoutUndefined(v)]));
}

function hostError(thrown: unknown): HostError {
  try {
    const payload = (thrown as { payload?: { tag?: unknown; val?: unknown } } | null)?.payload;
    const tag = payload?.tag;
    if (tag === "denied") {
      const val = (payload?.val ?? {}) as Record<string, unknown>;
      return { tag, val: { capability: String(val["capability"]), reason: String(val["reason"]), message: String(val["message"]) } };
    }
    if (tag === "not-found" || tag === "invalid-input" || tag === "io") return { tag, val: String(payload?.val) };
    return { tag: "io", val: thrown instanceof Error ? thrown.message : String(thrown) };
  } catch {
    return { tag: "io", val: "the host call failed" };
  }
}
