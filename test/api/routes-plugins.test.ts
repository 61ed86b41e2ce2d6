import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { inProcessClient } from "../../runtime/client/in-process.js";
import { echoComponent, packTgz, writePackage } from "../helpers/plugin-packages.js";
import { tempDir } from "../helpers/runtime.js";
import { errorOf } from "./fixtures.js";
import { apiFixture, BAD_PATH_NAMES, call, rawCall, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;
let root: string;
let echo: Awaited<ReturnType<typeof echoComponent>>;
let tls: { key: string; cert: string };
let https: Server;
let httpsBase = "";
let uploads: string;
/** What the https server serves, by path. */
const served = new Map<string, Buffer>();

/** A .tgz of the echo component under `manifest` overrides. */
async function tgz(name: string, overrides: Record<string, unknown> = {}): Promise<Buffer> {
  const dir = await writePackage(root, name, { ...echo.manifest, ...overrides }, echo.bytes);
  return readFile(await packTgz(dir, join(root, `${name}.tgz`)));
}

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const names = async () => (await f.runtime.installer.registry.list()).map((p) => `${p.name}@${p.version}`).sort();
const upload = (bytes: Uint8Array, path = "/v1/plugins", token?: string) => call(f, "POST", path, { body: bytes, type: "application/gzip", ...(token ? { token } : {}) });

before(async () => {
  root = await tempDir("clawhive-api-plugins-");
  echo = await echoComponent();
  tls = selfSignedCert(root);
  https = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const body = served.get(req.url ?? "");
    res.writeHead(body === undefined ? 404 : 200).end(body ?? "");
  });
  await new Promise<void>((resolve) => https.listen(0, "127.0.0.1", resolve));
  httpsBase = `https://localhost:${(https.address() as AddressInfo).port}`;
  uploads = await mkdtemp(join(tmpdir(), "clawhive-test-uploads-"));
  f = await apiFixture({ app: { pluginDownload: { ca: tls.cert }, pluginUploadDir: uploads } });
});

after(async () => {
  await f.close();
  https.close();
  await rm(root, { recursive: true, force: true });
  await rm(uploads, { recursive: true, force: true });
});

test("GET /v1/plugins lists the installed plugins; GET /v1/plugins/:name shows one with its tools' input schemas", async () => {
  const list = await call(f, "GET", "/v1/plugins");
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.plugins.map((p: { name: string }) => p.name).sort(), ["files", "probe"]);
  const one = await call(f, "GET", "/v1/plugins/files");
  assert.equal(one.status, 200);
  assert.equal(one.body.plugin.name, "files");
  assert.equal(one.body.plugin.first_party, true);
  const read = one.body.plugin.tools.find((t: { name: string }) => t.name === "read_file");
  assert.equal(read.input_schema.type, "object");
  assert.equal((await call(f, "GET", "/v1/plugins/nope")).status, 404);
});

test("install by URL with its sha256: refused without the right hash, installed with it", async () => {
  const bytes = await tgz("url-echo", { name: "url-echo" });
  served.set("/url-echo.tgz", bytes);
  const url = `${httpsBase}/url-echo.tgz`;
  const before = await names();
  const refusals: Array<[unknown, number, string, string | undefined]> = [
    [{ url, sha256: "0".repeat(64) }, 422, "blob_tampered", undefined],
    [{ url: `${httpsBase}/missing.tgz`, sha256: sha(bytes) }, 422, "download_failed", undefined],
    [{ url, sha256: "xyz" }, 400, "invalid_input", "body.sha256"],
    [{ url }, 400, "invalid_input", "body.sha256"],
  ];
  for (const [json, status, code, field] of refusals) {
    const answer = await call(f, "POST", "/v1/plugins", { json });
    assert.equal(answer.status, status, answer.text);
    assert.equal(answer.body.error.code, code, answer.text);
    assert.equal(answer.body.error.field, field);
    assert.deepEqual(await names(), before, "nothing installed");
  }
  const installed = await call(f, "POST", "/v1/plugins", { json: { url, sha256: sha(bytes).toUpperCase() } });
  assert.equal(installed.status, 201, installed.text);
  assert.equal(installed.body.action, "installed");
  assert.equal(installed.body.plugin.origin, url);
  assert.ok(f.runtime.tools().some((t) => t.qualifiedName === "url-echo.echo"), "the runtime loaded it");
  const again = await call(f, "POST", "/v1/plugins", { json: { url, sha256: sha(bytes) } });
  assert.equal(again.status, 200);
  assert.equal(again.body.action, "unchanged");
  const removed = await call(f, "DELETE", "/v1/plugins/url-echo");
  assert.equal(removed.status, 200, removed.text);
  assert.equal(removed.body.removed.name, "url-echo");
  assert.deepEqual(await names(), before);
  assert.equal((await call(f, "DELETE", "/v1/plugins/url-echo")).status, 404);
});

test("install by upload, then a widening upgrade: 409 with the diff, then accepted", async () => {
  const v1 = await tgz("up-v1");
  const installed = await upload(v1);
  assert.equal(installed.status, 201, installed.text);
  assert.equal(installed.body.plugin.name, "bench-echo");
  assert.match(installed.body.plugin.origin, /^upload by tok_[0-9a-f]{16}$/);
  assert.deepEqual(installed.body.plugin.tools.map((t: { name: string }) => t.name), ["echo", "hostloop", "kvloop"]);
  // The upload went through a private temp folder (in the dir the app was given), removed afterwards.
  assert.deepEqual(await readdir(uploads), []);

  const again = await upload(await tgz("up-v1-other", { description: "other" }));
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, "plugin_exists");

  const wider = await tgz("up-v2", { version: "0.2.0", capabilities: ["fs.read", "kv", "log"] });
  const refused = await upload(wider, "/v1/plugins/bench-echo/upgrade");
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.body.error.code, "upgrade_needs_acceptance");
  assert.deepEqual(refused.body.error.diff, { widening: true, lines: ["+ capability log"] });
  assert.match(refused.body.error.message, /accept=true/);
  assert.equal((await f.runtime.installer.registry.get("bench-echo"))?.version, "0.1.0", "nothing changed");

  const explicitNo = await upload(wider, "/v1/plugins/bench-echo/upgrade?accept=false");
  assert.equal(explicitNo.status, 409);
  const accepted = await upload(wider, "/v1/plugins/bench-echo/upgrade?accept=true");
  assert.equal(accepted.status, 200, accepted.text);
  assert.equal(accepted.body.action, "upgraded");
  assert.deepEqual(accepted.body.diff.lines, ["+ capability log"]);
  assert.equal((await f.runtime.installer.registry.get("bench-echo"))?.version, "0.2.0");

  const otherName = await upload(await tgz("up-other", { name: "other-echo", version: "0.3.0" }), "/v1/plugins/bench-echo/upgrade");
  assert.equal(otherName.status, 422);
  assert.equal(otherName.body.error.code, "plugin_name_mismatch");
  assert.equal((await upload(wider, "/v1/plugins/missing/upgrade")).status, 404);
});

test("a lookalike name is 409 naming both names unless allow_similar_name; every change is in /v1/audit?kind=plugin with its token", async () => {
  // The URL form says it in the body, an upload in the query; each refused, then allowed.
  const body = await tgz("look-url", { name: "fi1es" });
  served.set("/look-url.tgz", body);
  const url = `${httpsBase}/look-url.tgz`;
  const refusedUrl = await call(f, "POST", "/v1/plugins", { json: { url, sha256: sha(body) } });
  assert.equal(refusedUrl.status, 409, refusedUrl.text);
  assert.equal(refusedUrl.body.error.code, "plugin_name_similar");
  assert.match(refusedUrl.body.error.message, /fi1es is confusable with the installed plugin files/);
  assert.equal((await call(f, "POST", "/v1/plugins", { json: { url, sha256: sha(body), allow_similar_name: "yes" } })).status, 400);
  const allowedUrl = await call(f, "POST", "/v1/plugins", { json: { url, sha256: sha(body), allow_similar_name: true } });
  assert.equal(allowedUrl.status, 201, allowedUrl.text);

  const upload2 = await tgz("look-up", { name: "pr0be" });
  const refusedUpload = await upload(upload2);
  assert.equal(refusedUpload.status, 409, refusedUpload.text);
  assert.match(refusedUpload.body.error.message, /pr0be is confusable with the installed plugin probe/);
  assert.equal((await upload(upload2, "/v1/plugins?allow_similar_name=true")).status, 201);

  const audit = await call(f, "GET", "/v1/audit?kind=plugin&limit=500");
  assert.equal(audit.status, 200, audit.text);
  type Row = { kind: string; status: string; plugin: string; denial: { reason: string } | null; plugin_event: { by: string; sha256: string | null; action: string } };
  const records = audit.body.records as Row[];
  assert.ok(records.length > 0 && records.every((r) => r.kind === "plugin"));
  const similar = records.filter((r) => r.denial?.reason === "plugin_name_similar").map((r) => r.plugin).sort();
  assert.deepEqual(similar, ["fi1es", "pr0be"]);
  const admin = `token:${f.tokenId.admin}`;
  for (const name of ["fi1es", "pr0be"]) {
    const allowed = records.find((r) => r.status === "ok" && r.plugin === name);
    assert.equal(allowed?.plugin_event.by, admin, name);
    assert.equal(allowed?.plugin_event.sha256, echo.sha256);
  }
  // A refused read (a hash that is not the download's) is recorded too, by the same token.
  assert.ok(records.some((r) => r.status === "denied" && r.denial?.reason === "blob_tampered" && r.plugin_event.by === admin));
  for (const name of ["fi1es", "pr0be"]) assert.equal((await call(f, "DELETE", `/v1/plugins/${name}`)).status, 200);
  const removals = (await call(f, "GET", "/v1/audit?kind=plugin&limit=500")).body.records as Row[];
  const removed = removals.filter((r) => r.plugin_event.action === "remove" && r.status === "ok" && r.plugin_event.by === admin).map((r) => r.plugin);
  assert.ok(removed.includes("fi1es") && removed.includes("pr0be"), JSON.stringify(removed));
  // Refusals before the installer reads anything are recorded too.
  assert.equal((await call(f, "DELETE", "/v1/plugins/nothing-here")).status, 404);
  assert.equal((await upload(upload2, "/v1/plugins/nothing-here/upgrade")).status, 404);
  const missing = ((await call(f, "GET", "/v1/audit?kind=plugin&status=denied&limit=500")).body.records as Row[]).filter((r) => r.plugin === "nothing-here");
  assert.deepEqual(missing.map((r) => [r.plugin_event.action, r.denial?.reason, r.plugin_event.by]).sort(), [["remove", "not_found", admin], ["upgrade", "not_found", admin]]);
});

describe("bad input: the right 4xx and nothing installed", () => {
  type Case = [what: string, send: () => Promise<{ status: number; text: string }>, status: number, code: string, field?: string];
  const cases: Case[] = [
    ["url of the wrong type", () => call(f, "POST", "/v1/plugins", { json: { url: 5, sha256: "a".repeat(64) } }), 400, "invalid_input", "body.url"],
    ["http url", () => call(f, "POST", "/v1/plugins", { json: { url: "http://127.0.0.1/x.tgz", sha256: "a".repeat(64) } }), 400, "invalid_input", "body.url"],
    ["a local path as url", () => call(f, "POST", "/v1/plugins", { json: { url: "/etc/passwd", sha256: "a".repeat(64) } }), 400, "invalid_input", "body.url"],
    ["a file: url", () => call(f, "POST", "/v1/plugins", { json: { url: "file:///etc/passwd", sha256: "a".repeat(64) } }), 400, "invalid_input", "body.url"],
    ["an unknown field", () => call(f, "POST", "/v1/plugins", { json: { url: "https://x.test/a.tgz", sha256: "a".repeat(64), path: "/tmp" } }), 400, "invalid_input", "body.path"],
    ["a JSON array", () => call(f, "POST", "/v1/plugins", { json: [] }), 400, "invalid_input", "body.url"],
    ["a JSON string", () => call(f, "POST", "/v1/plugins", { json: "https://x.test/a.tgz" }), 400, "invalid_input", "body"],
    ["malformed JSON", () => call(f, "POST", "/v1/plugins", { body: '{"url": ', type: "application/json" }), 400, "invalid_json", "body"],
    ["no Content-Type", () => call(f, "POST", "/v1/plugins", { body: "x" }), 415, "unsupported_media_type", "body"],
    ["text/plain", () => call(f, "POST", "/v1/plugins", { body: "x", type: "text/plain" }), 415, "unsupported_media_type", "body"],
    ["an upload that is not gzip", () => upload(Buffer.from("not a package")), 400, "invalid_input", "body"],
    ["an empty upload", () => upload(new Uint8Array()), 400, "invalid_input", "body"],
    ["gzip that is not a tar", () => upload(Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3])), 400, "invalid_input", "body"],
    ["an unknown query parameter", () => upload(Buffer.from([0x1f, 0x8b]), "/v1/plugins?force=true"), 400, "invalid_input", "query.force"],
    ["a repeated query parameter", () => upload(Buffer.from([0x1f, 0x8b]), `/v1/plugins?sha256=${"a".repeat(64)}&sha256=${"b".repeat(64)}`), 400, "invalid_input", "query.sha256"],
    ["accept that is not a boolean", () => upload(Buffer.from([0x1f, 0x8b]), "/v1/plugins/files/upgrade?accept=yes"), 400, "invalid_input", "query.accept"],
    ["a declared length over the 64 MiB upload limit", () => rawCall(f, "POST", "/v1/plugins", { type: "application/gzip", chunks: [Buffer.alloc(1024)], contentLength: 64 * 1024 * 1024 + 1 }), 413, "body_too_large"],
    ["chunked, over the 64 MiB upload limit", () => rawCall(f, "POST", "/v1/plugins", { type: "application/gzip", chunks: Array.from({ length: 65 }, () => Buffer.alloc(1024 * 1024 + 1)) }), 413, "body_too_large"],
    ["// in the path", () => rawCall(f, "POST", "/v1/plugins//upgrade", { type: "application/gzip", chunks: ["x"] }), 400, "invalid_path", "path"],
    ...BAD_PATH_NAMES.flatMap(([what, name, code]): Case[] => [
      [`${what} in :name (upgrade)`, () => rawCall(f, "POST", `/v1/plugins/${name}/upgrade`, { type: "application/gzip", chunks: ["x"] }), 400, code],
      [`${what} in :name (get)`, () => rawCall(f, "GET", `/v1/plugins/${name}`), 400, code],
      [`${what} in :name (delete)`, () => rawCall(f, "DELETE", `/v1/plugins/${name}`), 400, code],
    ]),
  ];
  for (const [what, send, status, code, field] of cases) {
    test(`${what} → ${status} ${code}`, async () => {
      const before = await names();
      const answer = await send();
      assert.equal(answer.status, status, answer.text);
      const error = errorOf(answer.text);
      assert.equal(error.code, code, answer.text);
      if (field !== undefined) assert.equal(error.field, field, answer.text);
      assert.deepEqual(await names(), before);
    });
  }

  test("control: a 2 MiB upload is over the app's 1 MiB default but within the upload route's limit (400, not 413)", async () => {
    const answer = await upload(Buffer.alloc(2 * 1024 * 1024, 0x61));
    assert.equal(answer.status, 400, answer.text);
  });
});

test("a served app never reads a path it is sent: {source} bodies are 400; the client in this process may name one (control)", async () => {
  const dir = await writePackage(root, "path-echo", { ...echo.manifest, name: "path-echo" }, echo.bytes);
  const file = await packTgz(dir, join(root, "path-echo.tgz"));
  const before = await names();
  const refusals: Array<[string, string, unknown]> = [
    ["a package folder", "/v1/plugins", { source: dir }],
    ["a .tgz on the server's disk", "/v1/plugins", { source: file }],
    ["a file outside any package", "/v1/plugins", { source: "/etc/passwd" }],
    ["a path with its sha256", "/v1/plugins", { source: dir, sha256: echo.sha256 }],
    ["a path with a manifest", "/v1/plugins", { source: join(dir, "plugin.wasm"), manifest: join(dir, "plugin.json") }],
    ["a path beside a valid url", "/v1/plugins", { url: `${httpsBase}/nothing.tgz`, sha256: echo.sha256, source: dir }],
    ["an https url as a source", "/v1/plugins", { source: `${httpsBase}/nothing.tgz`, sha256: echo.sha256 }],
    ["an upgrade from a path", "/v1/plugins/files/upgrade", { source: dir }],
  ];
  for (const [what, path, json] of refusals) {
    const answer = await call(f, "POST", path, { json });
    assert.equal(answer.status, 400, `${what}: ${answer.text}`);
    assert.equal(answer.body.error.code, "invalid_input", what);
    assert.deepEqual(await names(), before, `${what}: nothing installed`);
  }
  // Control: the same body through the client in this process (whose caller has the files) installs.
  const local = inProcessClient(f.runtime);
  try {
    const installed = await local.request<{ action: string; plugin: { origin: string } }>("POST", "/v1/plugins", { json: { source: dir } });
    assert.deepEqual([installed.action, installed.plugin.origin], ["installed", dir]);
    await local.removePlugin("path-echo");
  } finally {
    await local.close();
  }
  assert.deepEqual(await names(), before);
});

test("plugins are for admins: approver and client tokens get 403, nothing installed", async () => {
  const before = await names();
  const bytes = await tgz("roles", { name: "roles-echo" });
  for (const token of [f.token.approver, f.token.client]) {
    for (const [method, path] of [["GET", "/v1/plugins"], ["GET", "/v1/plugins/files"], ["POST", "/v1/plugins"], ["POST", "/v1/plugins/files/upgrade"], ["DELETE", "/v1/plugins/files"]] as const) {
      // The refusal comes before the body is read: sent on its own connection, which the server may close early.
      const answer = method === "POST" ? await rawCall(f, method, path, { token, type: "application/gzip", chunks: [bytes], contentLength: true }) : await call(f, method, path, { token });
      assert.equal(answer.status, 403, `${method} ${path}: ${answer.text}`);
    }
  }
  assert.deepEqual(await names(), before);
});

test("the role is checked before the body is read: a client's chunked 65 MiB upload is 403, not 413", async () => {
  const answer = await rawCall(f, "POST", "/v1/plugins", { token: f.token.client, type: "application/gzip", chunks: Array.from({ length: 65 }, () => Buffer.alloc(1024 * 1024 + 1)) });
  assert.equal(answer.status, 403, answer.text);
});

function selfSignedCert(dir: string): { key: string; cert: string } {
  const key = join(dir, "tls.key");
  const cert = join(dir, "tls.crt");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"], { stdio: "ignore" });
  return { key: execFileSync("cat", [key], { encoding: "utf8" }), cert: execFileSync("cat", [cert], { encoding: "utf8" }) };
}
