/**
 * A public typed-export component no one here wrote — jco's fs-write-file example, built
 * unchanged from test/fixtures/jco-fs-write-file (provenance there) — whose one export
 * `test.run: func() -> string` writes `output.txt` into its first WASI preopen. Its WASI
 * filesystem calls hit the same fs proxy, policy and audit as any plugin's: each refusal beside
 * a control that writes.
 */
import assert from "node:assert/strict";
import { readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { buildComponent } from "../../runtime/plugins/build.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { writePackage } from "../helpers/plugin-packages.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";

const FIXTURE = join(PROJECT_ROOT, "test", "fixtures", "jco-fs-write-file");
const WRITTEN = "Hello world, from component!";
let runtime: Runtime;
let dispose: () => Promise<void>;
const dirs: string[] = [];
let n = 0;

before(async () => {
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 20_000 } }));
  const built = await buildComponent(FIXTURE, { cacheDir: defaultBuildCacheDir() });
  const manifest = JSON.parse(built.manifestText) as Record<string, unknown>;
  const packages = await tempDir();
  dirs.push(packages);
  await runtime.installPlugin(FIXTURE);
  const guarded = { ...manifest, name: "fs-write-guarded", tools: { test_run: { risk: "guarded", capabilities: ["fs.read", "fs.write"] } } };
  await runtime.installPlugin(await writePackage(packages, "fs-write-guarded", guarded, built.bytes));
});
after(async () => {
  await dispose?.();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Runs the export once for an agent with `mount` as its one mount; what it did and what was audited. */
async function runExport(plugin: string, mount: { host: string; mode: "ro" | "rw" } | undefined, lower = true) {
  const agent = await defineTestAgent(runtime, `fs-public-${++n}`, {
    plugins: [plugin],
    ...(mount ? { mounts: [{ guest: "/work", ...mount }] } : {}),
    // fs.write is Guarded by default; acknowledged Safe so the write itself is what is decided.
    ...(lower ? { lowerToSafe: [`${plugin}.test_run`] } : {}),
  });
  const run = await runtime.startRun({ agent });
  try {
    const outcome = await run.callTool(`${plugin}.test_run`, {});
    const records = (await runtime.audit.query({ runId: run.id, kind: "host_call", limit: 100 })).records;
    return { outcome, records };
  } finally {
    await run.end().catch(() => undefined);
  }
}

async function workDir(): Promise<string> {
  const dir = await tempDir();
  dirs.push(dir);
  return dir;
}

test("its typed export is a tool with an empty input schema", async () => {
  const tool = (await runtime.installer.registry.get("fs-write-file"))?.tools.find((t) => t.name === "test_run");
  assert.deepEqual(tool?.inputSchema, { type: "object", properties: {}, required: [], additionalProperties: false });
  assert.deepEqual(tool?.capabilities, ["fs.read", "fs.write"]);
});

describe("its WASI writes, each refusal beside a control", () => {
  it("control: a writable mount gets the file, and the write is audited", async () => {
    const dir = await workDir();
    const { outcome, records } = await runExport("fs-write-file", { host: dir, mode: "rw" });
    assert.equal(outcome.status, "ok", JSON.stringify(outcome));
    assert.equal(await readFile(join(dir, "output.txt"), "utf8"), WRITTEN);
    assert.ok(records.some((r) => r.hostCall?.proxy === "fs" && r.hostCall.function === "write" && r.status === "ok"), JSON.stringify(records));
  });

  it("a read-only mount: the write is refused and audited, nothing is written", async () => {
    const dir = await workDir();
    const { outcome, records } = await runExport("fs-write-file", { host: dir, mode: "ro" });
    assert.equal(outcome.status, "error", JSON.stringify(outcome));
    const denied = records.filter((r) => r.status === "denied");
    assert.ok(denied.some((r) => r.denial?.capability === "fs.write"), JSON.stringify(records));
    await assert.rejects(readFile(join(dir, "output.txt")));
  });

  it("output.txt a symlink to a file outside the mount: refused, the outside file untouched", async () => {
    const dir = await workDir();
    const outside = join(await workDir(), "secret.txt");
    await writeFile(outside, "outside the mount");
    await symlink(outside, join(dir, "output.txt"));
    const { outcome, records } = await runExport("fs-write-file", { host: dir, mode: "rw" });
    assert.equal(outcome.status, "error", JSON.stringify(outcome));
    assert.equal(await readFile(outside, "utf8"), "outside the mount");
    // Refused by the fs proxy, on record, not merely by the component's WASI view.
    assert.ok(records.some((r) => r.hostCall?.proxy === "fs" && r.status === "denied" && r.denial?.reason === "symlink"), JSON.stringify(records));
  });

  it("no mount at all: the component sees no preopen and fails on its own", async () => {
    const { outcome, records } = await runExport("fs-write-file", undefined);
    assert.equal(outcome.status, "error", JSON.stringify(outcome));
    assert.ok(!records.some((r) => r.hostCall?.proxy === "fs" && r.hostCall.function === "write"), JSON.stringify(records));
  });
});

test("a Guarded install of the same export waits for a person before its guest runs", async () => {
  const dir = await workDir();
  const { outcome, records } = await runExport("fs-write-guarded", { host: dir, mode: "rw" }, false);
  assert.equal(outcome.status, "approval_required", JSON.stringify(outcome));
  assert.deepEqual(records, []);
  await assert.rejects(readFile(join(dir, "output.txt")));
});
