/**
 * oci:// installs and publisher keys through the served API (admin only): the same refusals as
 * the installer's, each beside the request that passes.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { generatePublisherKey, type PublisherKeyPair } from "../../runtime/plugins/signing/index.js";
import { echoComponent } from "../helpers/plugin-packages.js";
import { needsRegistry, startRegistry, type TestRegistry } from "../helpers/oci-registry.js";
import { publish, type Publishable } from "../plugins/oci/_setup.js";
import { apiFixture, call, type ApiFixture } from "./routes-fixtures.js";

const skip = needsRegistry();
let f: ApiFixture;
let registry: TestRegistry;
let echo: Publishable;
let key: PublisherKeyPair;

before(async () => {
  if (skip.skip) return;
  registry = await startRegistry();
  const built = await echoComponent();
  echo = { component: built.bytes, manifestText: `${JSON.stringify({ ...built.manifest, sha256: built.sha256 }, null, 2)}\n` };
  key = generatePublisherKey();
  f = await apiFixture();
});

after(async () => {
  if (skip.skip) return;
  await f.close();
  await registry.stop();
});

describe("oci:// through /v1/plugins and /v1/plugin-keys", skip, () => {
  test("trusting a key: admin only, a bad key is 400 naming the field, trusting again is unchanged", async () => {
    const bad = await call(f, "POST", "/v1/plugin-keys", { json: { public_key: "ed25519:not-a-key", publisher: "clawhive-bench" } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, "public_key");
    const client = await call(f, "POST", "/v1/plugin-keys", { json: { public_key: key.publicKey, publisher: "clawhive-bench" }, token: f.token.client });
    assert.equal(client.status, 403);
    const trusted = await call(f, "POST", "/v1/plugin-keys", { json: { public_key: key.publicKey, publisher: "clawhive-bench" } });
    assert.equal(trusted.status, 201, trusted.text);
    assert.equal(trusted.body.key.key_id, key.keyId);
    const again = await call(f, "POST", "/v1/plugin-keys", { json: { public_key: key.publicKey, publisher: "clawhive-bench" } });
    assert.equal(again.status, 200);
    assert.equal(again.body.action, "unchanged");
    const list = await call(f, "GET", "/v1/plugin-keys");
    assert.deepEqual(list.body.keys.map((k: { key_id: string }) => k.key_id), [key.keyId]);
  });

  test("a served app takes {source: oci://…} but never a path; unsigned is refused, signed installs pinned by digest; a revoked key is refused", async () => {
    const path = await call(f, "POST", "/v1/plugins", { json: { source: "/etc/passwd" } });
    assert.equal(path.status, 400, path.text);
    const unsigned = await publish(`oci://${registry.host}/api/echo:unsigned`, echo);
    const refused = await call(f, "POST", "/v1/plugins", { json: { source: `oci://${registry.host}/api/echo:unsigned` } });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.error.code, "plugin_unsigned");
    const signed = await publish(`oci://${registry.host}/api/echo:1`, echo, { key });
    const installed = await call(f, "POST", "/v1/plugins", { json: { source: `oci://${registry.host}/api/echo:1` } });
    assert.equal(installed.status, 201, installed.text);
    assert.equal(installed.body.signature.status, "signed");
    assert.equal(installed.body.signature.key_id, key.keyId);
    assert.equal(installed.body.plugin.origin, `oci://${registry.host}/api/echo:1@${signed.digest}`);
    assert.equal((await call(f, "DELETE", "/v1/plugins/bench-echo")).status, 200);

    const revoked = await call(f, "POST", `/v1/plugin-keys/${key.keyId}/revoke`);
    assert.equal(revoked.status, 200);
    assert.notEqual(revoked.body.key.revoked_at, null);
    const afterRevoke = await call(f, "POST", "/v1/plugins", { json: { source: `oci://${registry.host}/api/echo@${signed.digest}` } });
    assert.equal(afterRevoke.status, 422);
    assert.equal(afterRevoke.body.error.code, "key_revoked");
    const retrust = await call(f, "POST", "/v1/plugin-keys", { json: { public_key: key.publicKey, publisher: "clawhive-bench" } });
    assert.equal(retrust.status, 409);
    assert.equal(retrust.body.error.code, "key_revoked");

    // Acknowledged: installed, and the audit record says what was acknowledged.
    const acknowledged = await call(f, "POST", "/v1/plugins", { json: { source: `oci://${registry.host}/api/echo@${unsigned.digest}`, allow_unsigned: true } });
    assert.equal(acknowledged.status, 201, acknowledged.text);
    assert.equal(acknowledged.body.signature.status, "acknowledged");
    assert.equal(acknowledged.body.signature.code, "plugin_unsigned");
    const audit = await call(f, "GET", "/v1/audit?kind=plugin&limit=50");
    const reasons = audit.body.records.map((r: { args: string | null }) => JSON.parse(r.args ?? "{}") as { action?: string; reason?: string }).map((a: { action?: string; reason?: string }) => `${a.action}:${a.reason}`);
    assert.ok(reasons.includes("install:installed, acknowledged plugin_unsigned"), reasons.join(" | "));
    assert.ok(reasons.includes("trust:trusted") && reasons.includes("revoke:revoked"), reasons.join(" | "));
  });
});
