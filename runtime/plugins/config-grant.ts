/**
 * The config an agent grants one of its plugins (`plugins[].config` in the agent manifest): what
 * the guest reads through `wasi:config/store` or Extism's `config_get`. Each value is a literal
 * or the name of a stored secret, read on the main thread when the guest asks for it; nothing
 * is ever read from the runtime's environment. The plugin's own `plugin.json` `wasi.config`
 * holds its defaults; the agent's grant wins for a key both set.
 */
import * as v from "valibot";

/** Same rule as plugin.json `wasi.config` keys (manifest.ts). */
export const CONFIG_KEY = /^[A-Za-z0-9_.-]{1,128}$/;
const SECRET_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
export const MAX_CONFIG_ENTRIES = 64;

export const PLUGIN_CONFIG_DESCRIPTION =
  "the plugin's wasi:config/store (and Extism config) values: each a literal string or {secret: name}, a stored secret read when the plugin asks for it; never the runtime's environment";

export const PluginConfigGrantSchema = v.pipe(
  v.record(
    v.pipe(v.string(), v.regex(CONFIG_KEY, "expected a config key: letters, digits, '_', '.', '-'")),
    v.union(
      [
        v.pipe(v.string(), v.maxLength(8192)),
        v.strictObject({ secret: v.pipe(v.string(), v.regex(SECRET_NAME, "expected the name of a stored secret")) }),
      ],
      "expected a string or {secret: name}",
    ),
  ),
  v.check((r) => Object.keys(r).length <= MAX_CONFIG_ENTRIES, `at most ${MAX_CONFIG_ENTRIES} config values`),
);
export type PluginConfigGrant = v.InferOutput<typeof PluginConfigGrantSchema>;
export type PluginConfigValue = PluginConfigGrant[string];

/** The values one instance serves: the plugin's defaults, then the agent's grant over them. */
export function pluginConfigValues(defaults: Readonly<Record<string, string>> | undefined, granted: PluginConfigGrant | undefined): ReadonlyMap<string, PluginConfigValue> {
  return new Map<string, PluginConfigValue>([...Object.entries(defaults ?? {}), ...Object.entries(granted ?? {})]);
}
