/**
 * Pending upgrades through the HTTP API: a widening upgrade refused for want of acceptance is
 * kept with its diff, listed, accepted later (verified again, refused once the installed
 * plugin changed) or rejected; every decision is a `plugin` audit record; admins only.
 */
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { echoComponent, packTgz, writePackage } from "../helpers/plugin-packages.js";
import { tempDir } from "../helpers/runtime.js";
import { apiFixture, call, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;
let root: string;
let echo: Awaited<ReturnType<typeof echoComponent>>;

async function tgz(name: string, overrides: Record<string, unknown> = {}): Promise<Buffer> {
  const dir = await writePackage(root, name, { ...echo.manifest, ...overrides }, echo.bytes);
  return readFile(await packTgz(dir, join(root, `${name}.tgz`)));
}
const upload = (bytes: Uint8Array, path: string) => call(f, "POST", path, { body: bytes, type: "application/gzip" });
const installedVersion = async () => (await f.runtime.installer.registry.get("bench-echo"))?.version;
type Row = { status: string; plugin: string; denial: { reason: string } | null; plugin_event: { by: string; action: string; version: string | null } };
const pluginRecords = async () => (await call(f, "GET", "/v1/audit?kind=plugin&limit=500")).body.records as Row[];

before(async () => {
  root = await tempDir("clawhive-api-upgrades-");
  echo = await echoComponent();
  f = await apiFixture();
  assert.equal((await upload(await tgz("v1"), "/v1/plugins")).status, 201);
});

after(async () => {
  await f.close();
  await rm(root, { recursive: true, force: true });
});

test("a refused widening upgrade is kept: the 409 names it, the list and the one route show its inert diff; a newer one replaces it; accept installs it", async () => {
  const refused = await upload(await tgz("v2", { version: "0.2.0", capabilities: ["fs.read", "kv", "log"] }), "/v1/plugins/bench-echo/upgrade");
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.body.error.code, "upgrade_needs_acceptance");
  assert.equal(refused.body.error.pending_upgrade.version, "0.2.0");
  assert.match(refused.body.error.message, /POST \/v1\/plugins\/bench-echo\/upgrade\/accept/);
  assert.equal(await installedVersion(), "0.1.0", "nothing installed changed");

  // A newer refused upgrade of the same plugin replaces the older one; its hostile description is shown inert.
  const newer = await upload(await tgz("v3", { version: "0.3.0", description: "echo\u202e\u0007", capabilities: ["fs.read", "kv", "log"] }), "/v1/plugins/bench-echo/upgrade");
  assert.equal(newer.status, 409, newer.text);
  const list = await call(f, "GET", "/v1/plugins/upgrades");
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.body.upgrades.map((u: { name: string; version: string; installed_version: string }) => [u.name, u.version, u.installed_version]), [["bench-echo", "0.3.0", "0.1.0"]]);
  const one = await call(f, "GET", "/v1/plugins/bench-echo/upgrade");
  assert.equal(one.status, 200, one.text);
  assert.deepEqual(one.body.upgrade.diff, { widening: true, lines: ["+ capability log"] });
  assert.equal(one.body.upgrade.description, "echo\\u{202e}\\u{7}");
  assert.equal(one.body.upgrade.proposed_by, `token:${f.tokenId.admin}`);

  const accepted = await call(f, "POST", "/v1/plugins/bench-echo/upgrade/accept");
  assert.equal(accepted.status, 200, accepted.text);
  assert.equal(accepted.body.action, "upgraded");
  assert.deepEqual(accepted.body.diff.lines, ["+ capability log"]);
  assert.equal(await installedVersion(), "0.3.0");
  assert.ok(f.runtime.tools().some((t) => t.qualifiedName === "bench-echo.echo"), "the runtime loaded it");
  const gone = await call(f, "GET", "/v1/plugins/bench-echo/upgrade");
  assert.equal(gone.status, 404);
  assert.equal(gone.body.error.code, "not_found");
  assert.equal((await call(f, "POST", "/v1/plugins/bench-echo/upgrade/accept")).status, 404, "accepted once");
  const upgraded = (await pluginRecords()).find((r) => r.plugin_event.action === "upgrade" && r.status === "ok" && r.plugin_event.version === "0.3.0");
  assert.equal(upgraded?.plugin_event.by, `token:${f.tokenId.admin}`);
});

test("accept is refused (409 naming what is installed now) once the plugin changed since the diff; reject drops it and is audited", async () => {
  const refused = await upload(await tgz("v4", { version: "0.4.0", capabilities: ["fs.read", "kv", "log", "http"] }), "/v1/plugins/bench-echo/upgrade");
  assert.equal(refused.status, 409, refused.text);
  // Removed and installed again: the same version, another install, so the diff was made against something else.
  assert.equal((await call(f, "DELETE", "/v1/plugins/bench-echo")).status, 200);
  assert.equal((await upload(await tgz("v3-again", { version: "0.3.0", capabilities: ["fs.read", "kv", "log"] }), "/v1/plugins")).status, 201);
  const stale = await call(f, "POST", "/v1/plugins/bench-echo/upgrade/accept");
  assert.equal(stale.status, 409, stale.text);
  assert.equal(stale.body.error.code, "upgrade_base_changed");
  assert.match(stale.body.error.message, /compared with bench-echo@0\.3\.0, but it is now bench-echo@0\.3\.0 \(sha256 /);
  assert.equal(await installedVersion(), "0.3.0");

  const rejected = await call(f, "DELETE", "/v1/plugins/bench-echo/upgrade");
  assert.equal(rejected.status, 200, rejected.text);
  assert.equal(rejected.body.rejected.version, "0.4.0");
  assert.deepEqual((await call(f, "GET", "/v1/plugins/upgrades")).body.upgrades, []);
  assert.equal((await call(f, "DELETE", "/v1/plugins/bench-echo/upgrade")).status, 404);
  const records = await pluginRecords();
  assert.ok(records.some((r) => r.denial?.reason === "upgrade_base_changed"));
  assert.ok(records.some((r) => r.denial?.reason === "upgrade_rejected" && r.plugin_event.version === "0.4.0" && r.plugin_event.by === `token:${f.tokenId.admin}`));
});

test("only an admin reads or decides pending upgrades (control: the admin's answers); bad names are 400 naming the field", async () => {
  assert.equal((await upload(await tgz("v5", { version: "0.5.0", capabilities: ["fs.read", "kv", "log", "http"] }), "/v1/plugins/bench-echo/upgrade")).status, 409);
  const routes = [["GET", "/v1/plugins/upgrades"], ["GET", "/v1/plugins/bench-echo/upgrade"], ["POST", "/v1/plugins/bench-echo/upgrade/accept"], ["DELETE", "/v1/plugins/bench-echo/upgrade"]] as const;
  for (const [method, path] of routes) {
    for (const who of ["approver", "client"] as const) {
      const answer = await call(f, method, path, { token: f.token[who] });
      assert.equal(answer.status, 403, `${who} ${method} ${path}: ${answer.text}`);
    }
  }
  assert.equal((await call(f, "GET", "/v1/plugins/bench-echo/upgrade")).status, 200, "control: still pending, the admin reads it");
  for (const [method, path] of [["GET", "/v1/plugins/Bad_Name!/upgrade"], ["POST", "/v1/plugins/..%2f/upgrade/accept"]] as const) {
    const answer = await call(f, method, path);
    assert.equal(answer.status, 400, `${method} ${path}: ${answer.text}`);
  }
  assert.equal((await call(f, "DELETE", "/v1/plugins/bench-echo/upgrade")).status, 200, "control: the admin rejects it");
});
