/**
 * A fresh instance of the mail plugin's AssemblyScript component (built as install builds it,
 * through jco's glue: see test/plugins/as/component.ts) over a fresh fake gmail.
 */
import { join } from "node:path";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { loadComponent } from "../as/component.js";
import type { HostError, HostImports } from "../files/fake-host.js";
import type { ToolsExport } from "../files/harness.js";
import { FakeGmail } from "./fake-gmail.js";
import type { FakeGmailOptions } from "./fake-gmail.js";

export interface MailPlugin {
  tools: ToolsExport;
  gmail: FakeGmail;
}

export async function mailPlugin(options: FakeGmailOptions = {}): Promise<MailPlugin> {
  const gmail = new FakeGmail(options);
  const loaded = await loadComponent(join(PROJECT_ROOT, "plugins", "mail"), { "clawhive:host/gmail": asHost(gmail.imports()["clawhive:host/gmail@0.1.1"]!) });
  const tools: ToolsExport = {
    describe: () => loaded.tools.describe() as ReturnType<ToolsExport["describe"]>,
    call(name, input) {
      try {
        return loaded.tools.call(name, input);
      } catch (e) {
        // jco throws a returned `tool-error` as a ComponentError's payload, as the sandbox's worker reads it.
        if (e !== null && typeof e === "object" && "payload" in e && !(e instanceof WebAssembly.RuntimeError)) throw (e as { payload: unknown }).payload;
        throw e;
      }
    },
  };
  return { tools, gmail };
}

/**
 * The fake's functions as the component's host: the canonical ABI carries only a well-formed
 * `host-error` into the guest, so whatever else a fake throws (a plain Error, a string, a
 * hostile object) reaches it as one, `io` unless it names a case; and a `none` jco lifts as a
 * present `undefined` field is dropped, so the fake records requests as the host reads them.
 */
function asHost(fns: HostImports[string]): Record<string, (arg: unknown) => unknown> {
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

function withoutUndefined(arg: unknown): unknown {
  if (arg === null || typeof arg !== "object" || Array.isArray(arg)) return arg;
  return Object.fromEntries(Object.entries(arg).filter(([, v]) => v !== undefined));
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
