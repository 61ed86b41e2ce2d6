/**
 * Without bubblewrap: every exec is refused (`no-sandbox`) unless the grant says `sandbox:
 * false` (the manifest acknowledged shell-without-sandbox); then the command runs directly,
 * still with the scrubbed environment, a private HOME, and cwd mapped to the mount's directory.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { probeSandbox } from "../../../host-proxies/shell/index.js";
import { proxyFor, rejectsWith, run, scratch } from "./_fixtures.js";

test("no sandbox: a missing bwrap is reported by the probe", async () => {
  const info = await probeSandbox({ bwrapPath: "/nonexistent/bwrap" });
  assert.equal(info.available, false);
  assert.match(info.available ? "" : info.reason, /\/nonexistent\/bwrap/);
});

test("no sandbox: a sandboxed grant refuses every exec (control: sandbox: false runs)", async (t) => {
  const s = await scratch(t, { "work/a.txt": "a" });
  const sandbox = await probeSandbox({ bwrapPath: "/nonexistent/bwrap" });
  const refused = await proxyFor(t, s, { commands: ["cat"], proxy: { sandbox } });
  const err = await rejectsWith(run(refused, ["cat", "a.txt"]), { tag: "denied", reason: "no-sandbox" });
  assert.match(err.message, /shell-without-sandbox/);
  const allowed = await proxyFor(t, s, { commands: ["cat"], sandbox: false, proxy: { sandbox } });
  assert.equal((await run(allowed, ["cat", "a.txt"])).stdout.text, "a");
});

test("no sandbox: the environment is still scrubbed and HOME is private and removed", async (t) => {
  const s = await scratch(t);
  process.env.CLAWHIVE_CANARY = "canary-value";
  t.after(() => delete process.env.CLAWHIVE_CANARY);
  const proxy = await proxyFor(t, s, { commands: ["printenv", "pwd"], sandbox: false, proxy: { sandbox: await probeSandbox({ bwrapPath: "/nonexistent/bwrap" }) } });
  const env = Object.fromEntries((await run(proxy, ["printenv"])).stdout.text.trim().split("\n").map((l) => l.split("=", 2)));
  assert.deepEqual(Object.keys(env).sort(), ["HOME", "LANG", "PATH", "TERM"]);
  assert.equal(env.PATH, "/usr/bin:/bin");
  assert.match(env.HOME ?? "", /clawhive-shell-home-/);
  await assert.rejects(stat(env.HOME ?? "/"), "the private HOME is removed after the run");
  assert.equal((await run(proxy, ["pwd"], { cwd: "/work" })).stdout.text.trim(), s.work, "control: cwd maps to the mount");
});

test("no sandbox: git does not discover a repository above the mount", async (t) => {
  const s = await scratch(t);
  const env = { PATH: "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: "/nonexistent" };
  execFileSync("git", ["init", "-q"], { cwd: s.base, env });
  const proxy = await proxyFor(t, s, { commands: ["git"], sandbox: false, proxy: { sandbox: await probeSandbox({ bwrapPath: "/nonexistent/bwrap" }) } });
  const above = await run(proxy, ["git", "status"]);
  assert.notEqual(above.exitCode, 0);
  assert.match(above.stderr.text, /not a git repository/);
  execFileSync("git", ["init", "-q"], { cwd: s.work, env });
  assert.equal((await run(proxy, ["git", "status", "--short"])).exitCode, 0, "control: a repository inside the mount");
  assert.ok((await readdir(join(s.work, ".git"))).includes("HEAD"));
});
