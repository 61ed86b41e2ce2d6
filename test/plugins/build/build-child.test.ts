/**
 * Build children are kept warm between jobs (build-child.ts): after a failed job the next build
 * still succeeds (a new child); a process that built exits on its own, and its child leaves
 * with it, taking its folder, as it does when that process is killed or stopped mid-build.
 * AssemblyScript builds run in a child without TurboFan for WebAssembly: the same bytes.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFile, cp, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { PluginError } from "../../../runtime/errors.js";
import { buildComponent } from "../../../runtime/plugins/build.js";
import { firstPartyPluginDir, PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { ECHO_PLUGIN } from "../../helpers/plugin-packages.js";
import { tempDir } from "../../helpers/runtime.js";

test("a build that fails: its error names the cause, not the work folder, and the next build in the process succeeds", async () => {
  const bad = await tempDir("clawhive-plugin-");
  const cache = await tempDir("clawhive-cache-");
  try {
    await cp(ECHO_PLUGIN, bad, { recursive: true });
    await appendFile(join(bad, "src", "index.ts"), '\nthrow new Error("echo refuses to start");\n');
    const error = await buildComponent(bad, { cacheDir: cache }).then(
      () => assert.fail("built"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof PluginError, String(error));
    assert.equal(error.code, "build_failed");
    assert.match(error.message, /echo refuses to start/);
    assert.doesNotMatch(error.message, /clawhive-build-/);
    // Control: the plugin as it is builds, in the same process, right after.
    const built = await buildComponent(ECHO_PLUGIN, { cacheDir: cache });
    assert.equal(built.manifest.name, "bench-echo");
    assert.ok(built.bytes.length > 0);
  } finally {
    await rm(bad, { recursive: true, force: true });
    await rm(cache, { recursive: true, force: true });
  }
});

/** A node process building the echo plugin with its temp folder at `tmp`; its stdout, stderr and exit. */
function buildInProcess(tmp: string, cache: string, options: { detached?: boolean } = {}) {
  const build = pathToFileURL(join(PROJECT_ROOT, "dist", "runtime", "plugins", "build.js")).href;
  const script = [
    `import { readdirSync } from "node:fs";`,
    `const { buildComponent } = await import(${JSON.stringify(build)});`,
    `await buildComponent(${JSON.stringify(ECHO_PLUGIN)}, { cacheDir: ${JSON.stringify(cache)} });`,
    // The child is still there, warm, with its folder: the next build would use it.
    `console.log(readdirSync(${JSON.stringify(tmp)}).filter((n) => n.startsWith("clawhive-build-")).length);`,
  ].join("\n");
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, TMPDIR: tmp }, stdio: ["ignore", "pipe", "pipe"], detached: options.detached ?? false });
  const output = { out: "", err: "" };
  child.stdout.on("data", (d: Buffer) => (output.out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output.err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { child, output, exited };
}

async function buildFolders(tmp: string): Promise<string[]> {
  return (await readdir(tmp)).filter((n) => n.startsWith("clawhive-build-"));
}

/** The build folders still in `tmp` after waiting up to `ms` for them to go. */
async function foldersLeft(tmp: string, ms: number): Promise<string[]> {
  let left = await buildFolders(tmp);
  for (let waited = 0; left.length > 0 && waited < ms; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = await buildFolders(tmp);
  }
  return left;
}

test("a process that built a plugin exits on its own; its warm build child leaves with it and removes its folder", async () => {
  const tmp = await tempDir("clawhive-tmp-");
  const cache = await tempDir("clawhive-cache-");
  try {
    const { output, exited } = buildInProcess(tmp, cache);
    assert.equal(await exited, 0, output.err);
    assert.equal(output.out.trim(), "1", "one warm child's folder while the process lived");
    // Once its parent is gone the child removes its folder and leaves.
    assert.deepEqual(await foldersLeft(tmp, 10_000), []);
  } finally {
    await rm(tmp, { recursive: true, force: true });
    await rm(cache, { recursive: true, force: true });
  }
});

// How a build's process may be stopped mid-build: killed alone, or its whole process group
// told to stop (a terminal's Ctrl-C, a supervisor), which reaches the build child too.
const stops: Array<{ name: string; stop: (pid: number) => void }> = [
  { name: "the process SIGKILLed", stop: (pid) => process.kill(pid, "SIGKILL") },
  { name: "its process group sent SIGINT (Ctrl-C)", stop: (pid) => process.kill(-pid, "SIGINT") },
  { name: "its process group sent SIGTERM", stop: (pid) => process.kill(-pid, "SIGTERM") },
];
for (const { name, stop } of stops) {
  test(`a build stopped midway, ${name}: its build child still removes its folder and leaves`, async () => {
    const tmp = await tempDir("clawhive-tmp-");
    const cache = await tempDir("clawhive-cache-");
    try {
      const { child, exited } = buildInProcess(tmp, cache, { detached: true });
      // The job is under way once its folder is in the child's.
      let job: string[] = [];
      for (let i = 0; i < 600 && job.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        for (const root of await buildFolders(tmp)) job.push(...(await readdir(join(tmp, root)).catch(() => [])));
      }
      assert.ok(job.length > 0, "the build started");
      stop(child.pid!);
      await exited;
      assert.deepEqual(await foldersLeft(tmp, 60_000), []);
    } finally {
      await rm(tmp, { recursive: true, force: true });
      await rm(cache, { recursive: true, force: true });
    }
  });
}

/** The V8 flags of this process's live build children (their command lines, before the script). */
async function childFlags(): Promise<string[][]> {
  const flags: string[][] = [];
  for (const pid of (await readdir("/proc")).filter((n) => /^\d+$/.test(n))) {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== process.pid) continue;
    const argv = (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).split("\0");
    const script = argv.findIndex((a) => a.endsWith("componentize-child.js"));
    if (script > 0) flags.push(argv.slice(1, script));
  }
  return flags;
}

test("an AssemblyScript build in a Liftoff-only child gives the same component, byte for byte, as one with TurboFan", { skip: process.platform !== "linux" && "reads /proc" }, async () => {
  const caches = [await tempDir("clawhive-cache-"), await tempDir("clawhive-cache-")];
  try {
    const files = firstPartyPluginDir("files");
    const baseline = await buildComponent(files, { cacheDir: caches[0]! });
    // The child that built it is still warm: it ran without TurboFan for WebAssembly.
    assert.ok((await childFlags()).some((f) => f.includes("--liftoff-only")), "a --liftoff-only build child");
    const optimizing = await buildComponent(files, { cacheDir: caches[1]!, assemblyScriptTier: "optimizing" });
    // Control: this one had a child of V8's default tiering.
    assert.ok((await childFlags()).some((f) => !f.includes("--liftoff-only")), "a build child with TurboFan");
    assert.ok(baseline.bytes.length > 0);
    assert.equal(baseline.sha256, optimizing.sha256);
    assert.deepEqual(baseline.bytes, optimizing.bytes);
  } finally {
    for (const cache of caches) await rm(cache, { recursive: true, force: true });
  }
});
