/** Publisher keys the operator trusts to sign plugins: list, trust, revoke. Admin only; trust and revoke are audited. */
import * as v from "valibot";
import type { TrustedKey } from "../../plugins/signing/index.js";
import type { Runtime } from "../../runtime.js";
import { inert } from "../../text/inert.js";
import * as S from "../schemas/plugin-keys.js";
import { principalName } from "./plugin-upgrades.js";
import { defineRoute, reply } from "./route.js";
import type { ApiRoute } from "./route.js";

const TrustBody = v.strictObject({
  public_key: v.pipe(v.string("expected an Ed25519 public key, ed25519:<base64>"), v.maxLength(1024, "expected at most 1024 characters")),
  publisher: v.pipe(v.string("expected the publisher name plugin manifests give"), v.minLength(1, "expected the publisher name plugin manifests give"), v.maxLength(128, "expected at most 128 characters")),
});
const KeyParams = v.strictObject({ key_id: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/, "expected a key id: 32 lowercase hex digits")) });

export function pluginKeyRoutes(runtime: Runtime): ApiRoute[] {
  const keys = runtime.installer.keys;
  return [
    defineRoute({
      method: "GET",
      path: "/v1/plugin-keys",
      tag: "plugins",
      summary: "Publisher keys trusted to sign plugins (revoked ones listed with when)",
      roles: ["admin"],
      responses: { 200: { description: "the keys, by publisher", schema: S.PluginKeyList } },
      handler: async (c) => reply(c, S.PluginKeyList, { keys: (await keys.list()).map(keyView) }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/plugin-keys",
      tag: "plugins",
      summary: "Trust a publisher's Ed25519 key to sign that publisher's plugins",
      description:
        "From now on a plugin whose manifest names `publisher` must carry a signature by one of its trusted keys, from any source (an OCI registry's plugin must be signed whatever its publisher). One key signs for one publisher; a revoked key is never trusted again (409 key_revoked). Audited as a `plugin` record, action `trust`.",
      roles: ["admin"],
      body: TrustBody,
      responses: {
        200: { description: "already trusted for that publisher: unchanged", schema: S.PluginKeyTrusted },
        201: { description: "trusted", schema: S.PluginKeyTrusted },
        400: { description: "not an Ed25519 public key, or not a publisher name" },
        409: { description: "key_revoked, or key_publisher_conflict: the key is trusted for another publisher" },
      },
      handler: async (c, { body }) => {
        const result = await keys.trust({ publicKey: body.public_key, publisher: body.publisher }, { by: principalName(c) });
        return reply(c, S.PluginKeyTrusted, { action: result.action, key: keyView(result.key) }, result.action === "trusted" ? 201 : 200);
      },
    }),
    defineRoute({
      method: "POST",
      path: "/v1/plugin-keys/:key_id/revoke",
      tag: "plugins",
      summary: "Revoke a publisher key: plugins it signed are refused from now on",
      description: "Installed plugins stay installed until upgraded or removed; every new install or upgrade signed by the key is refused (key_revoked). Final: the key cannot be trusted again. Audited as a `plugin` record, action `revoke`.",
      roles: ["admin"],
      params: KeyParams,
      responses: { 200: { description: "revoked (or revoked already)", schema: S.PluginKeyBody }, 404: { description: "no such key" } },
      handler: async (c, { params }) => reply(c, S.PluginKeyBody, { key: keyView(await keys.revoke(params.key_id, { by: principalName(c) })) }),
    }),
  ];
}

function keyView(key: TrustedKey): v.InferInput<typeof S.PluginKeySchema> {
  return {
    key_id: key.keyId,
    publisher: inert(key.publisher, { newlines: false }),
    public_key: key.publicKey,
    trusted_at: new Date(key.trustedAt).toISOString(),
    trusted_by: key.trustedBy,
    revoked_at: key.revokedAt === null ? null : new Date(key.revokedAt).toISOString(),
    revoked_by: key.revokedBy,
  };
}
