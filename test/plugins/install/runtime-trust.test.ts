import assert from "node:assert/strict";
import { access, cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { Runtime } from "../../../runtime/index.js";
import { sha256 } from "../../../runtime/plugins/artifact.js";
import { defaultBuildCacheDir } from "../../../runtime/plugins/locations.js";
import { defineTestAgent, PROBE_PLUGIN, tempDir } from "../../helpers/runtime.js";
import { writeTestSecretKey } from "../../helpers/secret-key.js";

// The case, end to end: a runtime compiled and sealed the probe plugin; someone rewrites
// its cached glue and the glue's record to match; the runtime restarts. The rewritten glue must
// not run, the refusal is in the audit log, and the plugin answers from a build made again.

test("a rewritten cached build (glue and record alike) does not run after a restart; refused, audited, rebuilt", async () => {
  const root = await tempDir("clawhive-restart-trust-");
  const dataDir = join(root, "data");
  const cache = join(root, "cache");
  const marker = join(root, "foreign-code-ran");
  try {
    await writeTestSecretKey(dataDir);
    // The probe's source build, from the shared cache: this test rewrites only its own cache.
    const shared = join(defaultBuildCacheDir(), "source");
    await mkdir(join(cache, "source"), { recursive: true });
    for (const name of (await readdir(shared)).filter((n) => n.startsWith("probe-") && !n.endsWith(".tmp"))) await cp(join(shared, name), join(cache, "source", name), { recursive: true });
    const open = () => Runtime.create({ dataDir, agentsDir: join(root, "agents"), pluginDirs: [PROBE_PLUGIN], buildCacheDir: cache, sandbox: { poolSize: 0 } });
    await mkdir(join(root, "agents"), { recursive: true });

    const first = await open();
    try {
      const agent = await defineTestAgent(first, "user", { plugins: ["probe"] });
      const run = await first.startRun({ agent });
      assert.deepEqual((await run.callTool("probe.echo", { text: "before" })).status, "ok");
      await run.end();
      const installs = (await first.audit.query({ kind: "plugin" })).records;
      assert.deepEqual(installs.map((r) => [r.pluginEvent?.action, r.decision, r.plugin, r.pluginEvent?.by]), [["install", "allow", "probe", "runtime"]]);
    } finally {
      await first.close();
    }

    const [dirName] = (await readdir(join(cache, "compiled"))).filter((n) => n.startsWith("probe-") && !n.endsWith(".tmp"));
    const dir = join(cache, "compiled", dirName!);
    const glue = `process.getBuiltinModule("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n${await readFile(join(dir, "plugin.js"), "utf8")}`;
    await writeFile(join(dir, "plugin.js"), glue);
    const record = JSON.parse(await readFile(join(dir, "artifact.json"), "utf8")) as { files: Record<string, string> };
    record.files["plugin.js"] = sha256(glue);
    await writeFile(join(dir, "artifact.json"), JSON.stringify(record, null, 2));

    const second = await open();
    try {
      const agent = await defineTestAgent(second, "user", { plugins: ["probe"] });
      const run = await second.startRun({ agent });
      const result = await run.callTool("probe.echo", { text: "after" });
      assert.equal(result.status, "ok", JSON.stringify(result));
      await run.end();
      await assert.rejects(access(marker), "the rewritten glue ran");
      const records = (await second.audit.query({ kind: "plugin" })).records;
      const refused = records.filter((r) => r.decision === "deny");
      assert.deepEqual(refused.map((r) => [r.pluginEvent?.action, r.plugin, r.denial?.reason, r.pluginEvent?.sha256 !== null]), [["load", "probe", "artifact_tampered", true]]);
      assert.equal((await second.audit.verify()).ok, true);
      assert.notEqual(await readFile(join(dir, "plugin.js"), "utf8"), glue, "the build was made again");
    } finally {
      await second.close();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
