import type { CallContext, ExtismPluginOptions } from "@extism/extism";
import { EXTISM_USER, extismHostFunction, U64_PARAMS } from "../plugins/extism-abi.js";
import { argsFromJson, toJson } from "./extism-shapes.js";
import type { HostResponse } from "./protocol.js";
import { GUEST_RESULT_JSON, parseBounded } from "../json/index.js";

type Functions = NonNullable<ExtismPluginOptions["functions"]>[string];

/**
 * The module's `extism:host/user` imports that are clawhive host functions, each a bridge call:
 * JSON parameters in, `{"ok"}`/`{"error"}` out. Other names are left unprovided, so the module
 * fails to instantiate, naming the import.
 */
export function userHostFunctions(module: WebAssembly.Module, hostCall: (iface: string, fn: string, args: unknown[]) => HostResponse, charge: (bytes: number) => void): Functions {
  const functions: Functions = {};
  for (const { module: namespace, name, kind } of WebAssembly.Module.imports(module)) {
    if (namespace !== EXTISM_USER || kind !== "function") continue;
    const host = extismHostFunction(name);
    if (!host) continue;
    const u64 = U64_PARAMS[`${host.iface}.${host.fn}`] ?? [];
    functions[name] = (ctx: CallContext, offset: bigint): bigint => {
      const text = ctx.read(offset)?.text();
      let response: HostResponse;
      // Bounded: the parameters are walked (and cloned to the main thread) recursively.
      const parsed = text === undefined ? undefined : parseBounded(text, GUEST_RESULT_JSON, { at: name });
      const args = parsed?.ok ? parsed.value : undefined;
      if (parsed && !parsed.ok && parsed.problem.code !== "not-json") {
        response = { ok: false, error: { tag: "invalid-input", val: parsed.problem.message } };
      } else if (!Array.isArray(args)) {
        response = { ok: false, error: { tag: "invalid-input", val: `${name}: expected the offset of a JSON array of the function's parameters` } };
      } else {
        response = hostCall(host.iface, host.fn, argsFromJson(args, u64));
      }
      const out = JSON.stringify(response.ok ? { ok: toJson(response.value) } : { error: toJson(response.error) });
      charge(Buffer.byteLength(out));
      return ctx.store(out);
    };
  }
  return functions;
}
