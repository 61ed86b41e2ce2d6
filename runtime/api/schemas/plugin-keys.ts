/** The schemas of the publisher keys routes (routes/plugin-keys.ts). */
import * as v from "valibot";

export const PluginKeySchema = v.strictObject({
  key_id: v.pipe(v.string(), v.description("the first 32 hex digits of the sha256 of the public key text; a signature names it")),
  publisher: v.pipe(v.string(), v.description("the plugin manifests' publisher this key signs for")),
  public_key: v.pipe(v.string(), v.description("ed25519:<base64 of the 32-byte key>")),
  trusted_at: v.string(),
  trusted_by: v.string(),
  revoked_at: v.nullable(v.string()),
  revoked_by: v.nullable(v.string()),
});
export const PluginKeyList = v.strictObject({ keys: v.array(PluginKeySchema) });
export const PluginKeyBody = v.strictObject({ key: PluginKeySchema });
export const PluginKeyTrusted = v.strictObject({ action: v.picklist(["trusted", "unchanged"]), key: PluginKeySchema });
