/**
 * A sandbox binding whose fs and http host calls go to the real proxies (canonicaliser, deny
 * list, SSRF defences), every call recorded as an audit would record it, log lines kept.
 */
import { join } from "node:path";
import { createFsProxy, fsHostFunctions } from "../../host-proxies/fs/index.js";
import { createHttpProxy, httpHostFunctions } from "../../host-proxies/http/index.js";
import { HostProxyError, type HostCall, type HostCallHandler, type HostError } from "../../host-proxies/types.js";
import { grant, resolverOf } from "../host-proxies/http/_fixtures.js";

export interface ProxyBinding {
  handler: HostCallHandler;
  calls: Array<{ call: HostCall; ok: boolean; error?: HostError }>;
  logs: string[];
  close(): Promise<void>;
}

/** `root/work` mounted rw at /work and `root/ro` ro at /ro; http to api.test (127.0.0.1) on `httpPort`. */
export async function proxyBinding(root: string, options: { httpPort?: number } = {}): Promise<ProxyBinding> {
  const fsProxy = await createFsProxy([{ guest: "/work", host: join(root, "work"), mode: "rw" }, { guest: "/ro", host: join(root, "ro"), mode: "ro" }], {});
  const fs = fsHostFunctions(fsProxy);
  const { resolver } = resolverOf({ "api.test": ["127.0.0.1"], "metadata.test": ["169.254.169.254"] });
  const ports = options.httpPort ? [options.httpPort, 80] : [80];
  const http = httpHostFunctions(createHttpProxy(grant({ hosts: ["api.test", "metadata.test", "169.254.169.254"], ports, allow_addresses: ["127.0.0.1"] }), { resolver, resolveSecret: async () => "" }));
  const calls: ProxyBinding["calls"] = [];
  const logs: string[] = [];
  const tables: Record<string, Record<string, (args: unknown[]) => Promise<unknown>>> = { fs, http };
  const handler: HostCallHandler = async (call) => {
    if (call.iface === "log") {
      logs.push(String(call.args[1]));
      return { ok: true, value: undefined };
    }
    const fn = tables[call.iface]?.[call.fn];
    try {
      if (!fn) throw HostProxyError.denied(call.iface, "not-granted", `no ${call.iface} proxy`);
      const value = await fn(call.args);
      calls.push({ call, ok: true });
      return { ok: true, value };
    } catch (error) {
      const hostError: HostError = error instanceof HostProxyError ? error.hostError : { tag: "io", val: String(error) };
      calls.push({ call, ok: false, error: hostError });
      return { ok: false, error: hostError };
    }
  };
  return { handler, calls, logs, close: () => fsProxy.close() };
}
