/**
 * The config subsumes rules that already exist elsewhere: the CLI's store-path resolution and
 * the sandbox's defaults. These tests hold the two in step until the CLI reads the config.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { configJsonSchema, DEFAULTS, ENV_OVERRIDES, loadConfig, runtimeOptionsFrom } from "../../runtime/config/index.js";
import { resolveAgentsDir, resolveDataDir, resolveStoreUrl } from "../../runtime/cli/store-path.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { Sandbox } from "../../runtime/sandbox/index.js";

const VARIABLES = ["CLAWHIVE_DATA_DIR", "CLAWHIVE_STORE_URL", "CLAWHIVE_AGENTS_DIR"] as const;

const rows: Array<{ name: string; flags: Record<string, unknown>; env: Partial<Record<(typeof VARIABLES)[number], string>> }> = [
  { name: "nothing set", flags: {}, env: {} },
  { name: "env data dir", flags: {}, env: { CLAWHIVE_DATA_DIR: "/srv/hive" } },
  { name: "relative env data dir", flags: {}, env: { CLAWHIVE_DATA_DIR: "state" } },
  { name: "empty env data dir", flags: {}, env: { CLAWHIVE_DATA_DIR: "" } },
  { name: "flag over env", flags: { "data-dir": "/a" }, env: { CLAWHIVE_DATA_DIR: "/b" } },
  { name: "env store", flags: {}, env: { CLAWHIVE_STORE_URL: "file:/srv/other.db" } },
  { name: "flag store over env", flags: { store: "file:/x.db" }, env: { CLAWHIVE_STORE_URL: "file:/y.db" } },
  { name: "remote store", flags: { store: "libsql://db.example.com" }, env: {} },
  { name: "agents from env", flags: {}, env: { CLAWHIVE_AGENTS_DIR: "agents" } },
  { name: "agents flag over env", flags: { agents: "/agents" }, env: { CLAWHIVE_AGENTS_DIR: "/other" } },
];

// store-path reads process.cwd(): run from an empty folder, so no clawhive.yaml is found.
let home: string;
const start = process.cwd();
before(async () => {
  home = await mkdtemp(join(tmpdir(), "clawhive-compat-"));
  process.chdir(home);
});
after(async () => {
  process.chdir(start);
  await rm(home, { recursive: true, force: true });
});

for (const row of rows) {
  test(`same answer as runtime/cli/store-path.ts: ${row.name}`, async () => {
    const saved = VARIABLES.map((name) => [name, process.env[name]] as const);
    try {
      for (const name of VARIABLES) {
        if (row.env[name] === undefined) delete process.env[name];
        else process.env[name] = row.env[name];
      }
      const cwd = process.cwd();
      const config = await loadConfig({ env: { ...row.env }, cwd, flags: row.flags });
      assert.equal(config.dataDir, resolveDataDir(row.flags));
      assert.equal(config.agentsDir, resolveAgentsDir(row.flags));
      // store-path keeps a `file:` URL as written; the config makes it absolute (the same file).
      const expected = resolveStoreUrl(row.flags);
      assert.equal(config.store.url, expected.startsWith("file:") ? `file:${resolve(cwd, expected.slice(5))}` : expected);
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
}

test("the config's sandbox defaults are the sandbox's own", async () => {
  const sandbox = new Sandbox({});
  try {
    // spinMs, refillPool and startWorkers are the opener's (a bench, `mcp serve`), not settings of the config.
    const { spinMs: _spin, refillPool: _refill, startWorkers: _start, ...own } = sandbox.options;
    const config = await loadConfig({ env: {}, cwd: home });
    assert.deepEqual(config.sandbox, own);
    assert.equal(DEFAULTS.poolSize, own.poolSize);
  } finally {
    await sandbox.close();
  }
});

test("runtimeOptionsFrom passes every setting the runtime takes", async () => {
  const config = await loadConfig({
    env: { CLAWHIVE_STORE_AUTH_TOKEN: "t", CLAWHIVE_SECRET_KEY_FILE: "/k", CLAWHIVE_POOL_SIZE: "0", CLAWHIVE_MAIL_BACKEND: "maildir" },
    cwd: home,
    flags: { store: "libsql://db.example.com" },
  });
  const onSandboxEvent = () => {};
  const options = runtimeOptionsFrom(config, { onSandboxEvent });
  assert.equal(options.dataDir, join(PROJECT_ROOT, ".clawhive"));
  assert.equal(options.storeUrl, "libsql://db.example.com");
  assert.equal(options.storeAuthToken, "t");
  assert.equal(options.secretKeyFile, "/k");
  assert.equal(options.sandbox?.poolSize, 0);
  assert.equal(options.sandbox?.onEvent, onSandboxEvent);
  assert.deepEqual(options.mail, { backend: "maildir" });
  assert.equal(options.calendar, undefined, "unset: the runtime's own default applies");
});

test("the JSON Schema is strict and describes every setting", () => {
  const schema = configJsonSchema() as { additionalProperties?: boolean; properties: Record<string, { properties?: Record<string, unknown>; additionalProperties?: boolean }> };
  assert.equal(schema.additionalProperties, false);
  assert.ok(schema.properties.server?.properties?.listen);
  assert.equal(schema.properties.sandbox?.additionalProperties, false);
  assert.ok(schema.properties.sandbox?.properties?.pool_size);
});

test("docs/configuration.md names every variable and every key", async () => {
  const docs = await readFile(join(PROJECT_ROOT, "docs", "configuration.md"), "utf8");
  for (const { name } of ENV_OVERRIDES) assert.ok(docs.includes(`\`${name}\``), `${name} is documented`);
  const schema = configJsonSchema() as { properties: Record<string, { properties?: Record<string, unknown> }> };
  for (const [key, value] of Object.entries(schema.properties)) {
    if (key === "$schema") continue;
    const children = Object.keys(value.properties ?? {});
    if (children.length === 0 || key === "mail" || key === "calendar") assert.ok(docs.includes(`\`${key}`), `${key} is documented`);
    for (const child of children) assert.ok(docs.includes(`${key}.${child}`), `${key}.${child} is documented`);
  }
});
