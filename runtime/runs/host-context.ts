import { createFsProxy, fsHostFunctions, type FsProxy } from "../../host-proxies/fs/index.js";
import { createLogProxy, logHostFunctions, type LogLine } from "../../host-proxies/log/index.js";
import { HostProxyError, type HostCall, type HostCallHandler, type HostCallResult } from "../../host-proxies/types.js";
import type { PluginManifest } from "../plugins/manifest.js";
import type { RunGrant } from "./grant.js";

type HostFunctions = Record<string, (args: unknown[]) => Promise<unknown>>;

/** The capability each host function needs. Anything not listed here is not a host function. */
const CAPABILITY: Record<string, Record<string, string>> = {
  fs: { mounts: "fs.read", read: "fs.read", listDir: "fs.read", stat: "fs.read", write: "fs.write", remove: "fs.write", mkdir: "fs.write" },
  log: { write: "log" },
};

export interface HostContext {
  handler: HostCallHandler;
  /** Closes the instance's handles (mount roots). Its host calls fail afterwards. */
  close(): Promise<void>;
}

/**
 * The host side of one instance: proxies built from the run's grant when the instance is bound
 * (mount handles opened now, fixed for the instance's life), and a handler that serves a host
 * call only if both the plugin's manifest and the run's grant allow its capability.
 */
export async function createHostContext(
  grant: RunGrant,
  options: { plugin: PluginManifest; onLog: (line: LogLine) => void; onHostCall?: (call: HostCall, result: HostCallResult) => void },
): Promise<HostContext> {
  const tables: Record<string, HostFunctions> = {};
  let fsProxy: FsProxy | undefined;
  if (grant.fs && grant.fs.mounts.length > 0) {
    fsProxy = await createFsProxy(grant.fs.mounts, {
      allowSensitive: grant.fs.allowSensitive,
      maxReadBytes: grant.fs.maxReadBytes,
      maxWriteBytes: grant.fs.maxWriteBytes,
    });
    tables.fs = fsHostFunctions(fsProxy);
  }
  if (grant.log) tables.log = logHostFunctions(createLogProxy(options.onLog));
  const declared = new Set(options.plugin.capabilities);
  let closed = false;

  const serve = async (call: HostCall): Promise<HostCallResult> => {
    const capability = Object.hasOwn(CAPABILITY, call.iface) ? CAPABILITY[call.iface]![call.fn] : undefined;
    if (!capability || !Object.hasOwn(CAPABILITY[call.iface]!, call.fn)) {
      return denied(`${call.iface}.${call.fn}`, "unknown-function", `there is no host function ${call.iface}.${call.fn}`);
    }
    if (closed) return denied(capability, "instance-closed", "the instance's grants ended with it");
    if (!declared.has(capability)) {
      return denied(capability, "not-declared", `plugin ${options.plugin.name} does not declare ${capability} in its manifest`);
    }
    const fns = tables[call.iface];
    const write = capability === "fs.write" && !grant.fs?.mounts.some((m) => m.mode === "rw");
    if (!fns || write) return denied(capability, "not-granted", `the run was not granted ${capability}`);
    try {
      return { ok: true, value: await fns[call.fn]!(call.args) };
    } catch (error) {
      if (error instanceof HostProxyError) return { ok: false, error: error.hostError };
      return { ok: false, error: { tag: "io", val: "host call failed" } };
    }
  };

  return {
    handler: async (call) => {
      const result = await serve(call);
      options.onHostCall?.(call, result);
      return result;
    },
    close: async () => {
      closed = true;
      await fsProxy?.close();
    },
  };
}

function denied(capability: string, reason: string, message: string): HostCallResult {
  return { ok: false, error: { tag: "denied", val: { capability, reason, message } } };
}
