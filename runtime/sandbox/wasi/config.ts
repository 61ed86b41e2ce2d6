/**
 * A guest's config reads (`wasi:config/store`, Extism's `config_get`): asked of the main thread,
 * where the run's binding serves the plugin's defaults and the agent's grant (named secrets
 * included) and audits the read. When no run can answer (an unbound instance, a read outside
 * a tool call) the plugin's own defaults from plugin.json stand alone. Nothing is read from the
 * worker's environment.
 */
import type { HostResponse } from "../protocol.js";

export interface ConfigReader {
  /** The value of `key`, or undefined when it is not set. */
  get(key: string): string | undefined;
  all(): Array<[string, string]>;
}

/** Thrown to the guest when a granted value could not be read (a secret missing from the store). */
export class ConfigUnreadable extends Error {}

export function configReader(hostCall: (iface: string, fn: string, args: unknown[]) => HostResponse, defaults: Readonly<Record<string, string>>): ConfigReader {
  // A refusal (no run bound, no tool call, a binding that serves no config) leaves the plugin's
  // own defaults: a run that serves config already counts them, so nothing more is given here.
  const refused = (response: Extract<HostResponse, { ok: false }>): true => {
    const error = response.error as { tag?: string; val?: unknown };
    if (error?.tag !== "denied") throw new ConfigUnreadable(typeof error?.val === "string" ? error.val : "the config could not be read");
    return true;
  };
  return {
    get(key) {
      const response = hostCall("config", "get", [key]);
      if (response.ok) return typeof response.value === "string" ? response.value : undefined;
      return refused(response) && Object.hasOwn(defaults, key) ? defaults[key] : undefined;
    },
    all() {
      const response = hostCall("config", "all", []);
      if (response.ok) return Array.isArray(response.value) ? (response.value as Array<[string, string]>).map(([k, v]) => [String(k), String(v)]) : [];
      refused(response);
      return Object.entries(defaults);
    },
  };
}
