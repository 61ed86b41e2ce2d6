import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmod, copyFile, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { openAuditLog } from "../../runtime/audit/index.js";
import { Runtime } from "../../runtime/index.js";
import { RunRecords } from "../../runtime/runs/records.js";
import { openStore, StoreError } from "../../runtime/store/index.js";
import { BIN } from "../cli/fixtures.js";
import { defineTestAgent, FILES_PLUGIN, PROBE_PLUGIN, tempDir } from "../helpers/runtime.js";
import { writeTestSecretKey } from "../helpers/secret-key.js";

/**
 * A store that cannot be written says "read-only" at start and on every write, and can still be
 * read. Tests run as root, whom the kernel lets write a 0444 file: what is proven here is that
 * the store decides from the file's mode (no write bit at all → read-only, for root too) and
 * that the refusal then comes from SQLite itself (`PRAGMA query_only`, SQLITE_READONLY), as it
 * would for a read-only mount (EROFS, which `access(W_OK)` reports; not reproducible here).
 */
let root: string;
let dataDir: string;
let runId: string;

before(async () => {
  root = await tempDir("clawhive-ro-");
  dataDir = join(root, "data");
  await writeTestSecretKey(dataDir);
  await mkdir(join(root, "agents"), { recursive: true });
  const runtime = await Runtime.create({ dataDir, agentsDir: join(root, "agents"), pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], sandbox: { poolSize: 0 } });
  try {
    const agent = await defineTestAgent(runtime, "reader", { plugins: ["probe"] });
    const { run, settled } = await runtime.submitRun({ agent, toolCalls: [{ name: "probe.echo", input: { a: 1 } }] });
    await settled;
    runId = run.id;
  } finally {
    await runtime.close();
  }
  await chmod(join(dataDir, "clawhive.db"), 0o444);
});
after(async () => {
  await chmod(join(dataDir, "clawhive.db"), 0o644).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

const url = () => `file:${join(dataDir, "clawhive.db")}`;

test("a 0444 store file is opened read-only: lists and audit verify read it, a write says read-only", async () => {
  const store = await openStore({ url: url() });
  try {
    assert.equal(store.readOnly, true);
    const runs = await new RunRecords(store).list();
    assert.deepEqual(runs.map((r) => [r.id, r.status]), [[runId, "ended"]]);
    const audit = await openAuditLog(store);
    assert.equal((await audit.verify()).ok, true);
    await audit.close();
    await assert.rejects(store.execute({ sql: "UPDATE runs SET task = 'changed' WHERE id = ?", args: [runId] }), (error: unknown) => {
      assert.ok(error instanceof StoreError);
      assert.equal(error.code, "store_read_only");
      assert.equal(error.sqliteCode, "SQLITE_READONLY");
      assert.match(error.message, /the store is read-only/);
      return true;
    });
    await assert.rejects(store.batch(["DELETE FROM runs"]), { code: "store_read_only" });
    assert.equal((await new RunRecords(store).get(runId))?.status, "ended", "nothing was changed");
  } finally {
    await store.close();
  }
});

test("control: a writable copy of the same store is opened read-write and takes the write", async () => {
  const copy = join(root, "copy.db");
  await copyFile(join(dataDir, "clawhive.db"), copy);
  for (const side of ["-wal", "-shm"]) await copyFile(join(dataDir, `clawhive.db${side}`), `${copy}${side}`).catch(() => undefined);
  await chmod(copy, 0o644);
  const store = await openStore({ url: `file:${copy}` });
  try {
    assert.equal(store.readOnly, false);
    const result = await store.execute({ sql: "UPDATE runs SET task = 'changed' WHERE id = ?", args: [runId] });
    assert.equal(result.rowsAffected, 1);
  } finally {
    await store.close();
  }
  // Asked for read-only, the writable copy refuses writes all the same.
  const asked = await openStore({ url: `file:${copy}`, readOnly: true });
  try {
    assert.equal(asked.readOnly, true);
    await assert.rejects(asked.execute("DELETE FROM runs"), { code: "store_read_only" });
  } finally {
    await asked.close();
  }
});

test("a runtime on a read-only store refuses to start, saying read-only and what still works", async () => {
  await assert.rejects(Runtime.create({ dataDir, agentsDir: join(root, "agents"), pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], sandbox: { poolSize: 0 } }), (error: unknown) => {
    assert.ok(error instanceof StoreError);
    assert.equal(error.code, "store_read_only");
    assert.match(error.message, /is read-only .*audit verify/);
    return true;
  });
});

const CLI: Array<{ args: string[]; code: number; out?: RegExp; err?: RegExp }> = [
  { args: ["audit", "verify"], code: 0 },
  { args: ["audit", "tail"], code: 0 },
  { args: ["runs", "list"], code: 0, out: new RegExp("run_") },
  { args: ["approvals", "list", "--status", "all"], code: 0 },
  { args: ["run", "reader", "echo it", "--call", "probe.echo={}"], code: 1, err: /is read-only/ },
];

for (const row of CLI) {
  test(`clawhive ${row.args.join(" ")} on a read-only store exits ${row.code}`, () => {
    const env = { ...process.env };
    for (const name of ["CLAWHIVE_DATA_DIR", "CLAWHIVE_STORE_URL", "CLAWHIVE_SERVER", "CLAWHIVE_TOKEN", "CLAWHIVE_AGENTS_DIR"]) delete env[name];
    const result = spawnSync(process.execPath, [BIN, ...row.args, "--data-dir", dataDir], { encoding: "utf8", timeout: 300_000, env });
    assert.equal(result.status, row.code, `${result.stdout}\n${result.stderr}`);
    if (row.out) assert.match(result.stdout, row.out);
    if (row.err) assert.match(result.stderr, row.err);
    else assert.doesNotMatch(result.stderr, /read-only|SQLITE_READONLY/);
  });
}
