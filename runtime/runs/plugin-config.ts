/**
 * `config.get` and `config.all`: a guest reading its config (`wasi:config/store`, Extism's
 * `config_get`). The values are the plugin's defaults and the agent's grant to the plugin
 * (runtime/plugins/config-grant.ts); a value naming a secret is read from the secret store
 * here, on the main thread, when the guest asks, so no secret is in a worker before a guest
 * call asks for it and none comes from the runtime's environment. Every read is audited with the
 * key (and the secret's name), never the value; a key nobody set is absent to the guest and
 * recorded as refused, so a plugin probing for keys shows in the audit.
 */
import type { HostCall, HostCallResult } from "../../host-proxies/types.js";
import type { AuditLog } from "../audit/index.js";
import { durabilityOf } from "../../host-proxies/durability.js";
import { openHostCallRecord } from "./host-call-records.js";
import { hostCallSubject, type HostCallSource } from "./host-call-subject.js";
import type { ActiveToolCall, PluginConfigOptions } from "./host-context-types.js";

export type { PluginConfigOptions } from "./host-context-types.js";

const CAPABILITY = "config";

export async function servePluginConfig(source: Omit<HostCallSource, "active"> & { audit: AuditLog; active: () => ActiveToolCall | undefined }, config: PluginConfigOptions | undefined, call: HostCall): Promise<HostCallResult> {
  const keys = call.fn === "get" ? [call.args[0]] : call.fn === "all" ? [...(config?.values.keys() ?? [])] : undefined;
  const args = { fn: call.fn, ...(call.fn === "get" ? { key: typeof call.args[0] === "string" ? call.args[0].slice(0, 200) : null } : { keys }) };
  const subject = hostCallSubject(source, { proxy: "config", fn: call.fn, args, capability: CAPABILITY }, null);
  const refuse = async (reason: string, message: string): Promise<HostCallResult> => {
    const denial = { capability: CAPABILITY, reason, message };
    await source.audit.appendDenial({ ...subject, denial });
    return { ok: false, error: { tag: "denied", val: denial } };
  };
  if (keys === undefined || keys.some((k) => typeof k !== "string")) return refuse("invalid-input", `config.${call.fn}: expected a key string`);
  if (!source.active()) return refuse("no-tool-call", "config is read only during a tool call of a live run");
  const missing = (keys as string[]).filter((k) => !config?.values.has(k));
  if (missing.length > 0) return refuse("not-granted", `config key ${JSON.stringify(String(missing[0]).slice(0, 200))} is set neither by the plugin nor by the agent's grant to it`);
  const secrets = (keys as string[]).map((k) => config!.values.get(k)!).filter((value): value is { secret: string } => typeof value === "object").map((value) => value.secret);
  // A read (host-proxies/durability.ts): recorded in the chain, made durable before the
  // ToolCall's result is released (its value reaches nobody but the guest before then).
  const record = await openHostCallRecord(source.audit, { ...subject, args: { ...args, ...(secrets.length > 0 ? { secrets } : {}) } as never }, { durability: durabilityOf("config", call.fn), active: source.active() });
  let result: HostCallResult;
  try {
    const entries: Array<[string, string]> = [];
    for (const key of keys as string[]) entries.push([key, await valueOf(config!, key)]);
    result = { ok: true, value: call.fn === "get" ? entries[0]![1] : entries };
  } catch (error) {
    result = { ok: false, error: { tag: "io", val: (error as Error).message } };
  }
  record.settle(result.ok ? { status: "ok", resultSize: 0 } : { status: "error", error: { code: "io", message: String(result.error.val) } });
  return result;
}

async function valueOf(config: PluginConfigOptions, key: string): Promise<string> {
  const value = config.values.get(key)!;
  if (typeof value === "string") return value;
  try {
    return await config.secretValue(value.secret);
  } catch (error) {
    throw new Error(`config key ${key}: secret ${value.secret} could not be read: ${(error as Error).message}`, { cause: error });
  }
}
