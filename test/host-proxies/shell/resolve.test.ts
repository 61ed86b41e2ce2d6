/**
 * resolveShellGrant: names become fixed absolute paths at grant time; what runs later is that
 * file or nothing. Refusals have a control beside them.
 */
import assert from "node:assert/strict";
import { chmod, mkdir, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { InvalidInputError } from "../../../runtime/errors.js";
import { createShellProxy, resolveShellGrant } from "../../../host-proxies/shell/index.js";
import type { ResolveShellGrantOptions } from "../../../host-proxies/shell/index.js";
import { grantFor, rejectsWith, run, sandboxProbe, scratch, script } from "./_fixtures.js";

const resource = (...names: string[]) => ({ mounts: [], commands: names.map((name) => ({ name, deny: [], runs_programs: false })), sandbox: true });

async function refused(names: string[], options: ResolveShellGrantOptions, message: RegExp): Promise<void> {
  await assert.rejects(resolveShellGrant(resource(...names), options), (err: unknown) => {
    assert.ok(err instanceof InvalidInputError, String(err));
    assert.match(err.message, message);
    return true;
  });
}

test("resolve: system commands resolve to absolute real paths", async () => {
  const grant = await resolveShellGrant(resource("cat", "git"));
  for (const c of grant.commands) {
    assert.match(c.path, /^\/(usr\/)?(local\/)?bin\/(cat|git)$/);
    assert.equal(c.program, c.name);
    assert.equal(c.runsPrograms, false);
  }
  assert.deepEqual(grant.searchPath, ["/usr/local/bin", "/usr/bin", "/bin"]);
  assert.ok(Object.isFrozen(grant) && Object.isFrozen(grant.commands));
});

test("resolve: a name that is not on the search path is refused, naming it (control: one that is)", async (t) => {
  const s = await scratch(t);
  await script(s.bin, "tool", "#!/bin/sh\n");
  await refused(["tool", "no-such-tool"], { searchPath: s.bin }, /commands\[1\]\.name: command "no-such-tool" was not found/);
  assert.equal((await resolveShellGrant(resource("tool"), { searchPath: s.bin })).commands[0]?.path, join(s.bin, "tool"));
});

test("resolve: first match on the search path wins; symlinks are resolved; non-executables skipped", async (t) => {
  const s = await scratch(t);
  const first = join(s.base, "first");
  const second = join(s.base, "second");
  await mkdir(first);
  await mkdir(second);
  await writeFile(join(first, "plain"), "not executable");
  await script(second, "plain", "#!/bin/sh\n");
  await script(second, "real-tool", "#!/bin/sh\n");
  await symlink(join(second, "real-tool"), join(first, "tool"));
  const grant = await resolveShellGrant(resource("tool", "plain"), { searchPath: `${first}:${second}` });
  assert.deepEqual(grant.commands.map((c) => c.path), [join(second, "real-tool"), join(second, "plain")]);
});

test("resolve: a program runner is marked by its real name too (sh → dash)", async (t) => {
  const s = await scratch(t);
  await script(s.bin, "dash", "#!/bin/sh\n");
  await symlink(join(s.bin, "dash"), join(s.bin, "innocent"));
  const grant = await resolveShellGrant(resource("innocent"), { searchPath: s.bin });
  assert.deepEqual([grant.commands[0]?.runsPrograms, grant.commands[0]?.runnerAcknowledged], [true, false]);
  const acknowledged = await resolveShellGrant(resource("innocent"), { searchPath: s.bin, allowProgramRunners: ["innocent"] });
  assert.equal(acknowledged.commands[0]?.runnerAcknowledged, true);
});

test("resolve: search paths with relative or empty entries are refused", async () => {
  await refused(["cat"], { searchPath: "bin:/usr/bin" }, /searchPath: every entry must be an absolute directory/);
  await refused(["cat"], { searchPath: "/usr/bin::/bin" }, /searchPath/);
  await refused(["cat"], { searchPath: "" }, /searchPath/);
});

test("resolve: a binary others can replace is refused (control: the same dir made private)", async (t) => {
  const s = await scratch(t);
  await script(s.bin, "tool", "#!/bin/sh\n");
  await chmod(s.bin, 0o777);
  await refused(["tool"], { searchPath: s.bin }, /another user can replace/);
  await chmod(s.bin, 0o755);
  await chmod(join(s.bin, "tool"), 0o757);
  await refused(["tool"], { searchPath: s.bin }, /another user can replace/);
  await chmod(join(s.bin, "tool"), 0o755);
  assert.ok(await resolveShellGrant(resource("tool"), { searchPath: s.bin }));
});

test("resolve: timeouts are validated", async () => {
  await refused(["cat"], { maxTimeoutMs: 0 }, /maxTimeoutMs/);
  await refused(["cat"], { defaultTimeoutMs: 2_000, maxTimeoutMs: 1_000 }, /defaultTimeoutMs: must not exceed/);
  const grant = await resolveShellGrant(resource("cat"), { defaultTimeoutMs: 10, maxTimeoutMs: 20 });
  assert.deepEqual([grant.defaultTimeoutMs, grant.maxTimeoutMs], [10, 20]);
});

test("resolve: fixed for the instance's life — a file swapped later is refused, a new PATH entry ignored", async (t) => {
  const s = await scratch(t);
  const early = join(s.base, "early");
  await mkdir(early);
  await script(s.bin, "tool", "#!/bin/sh\necho original\n");
  const grant = await grantFor({ commands: ["tool"], resolve: { searchPath: `${early}:${s.bin}` } });
  const proxy = await createShellProxy(grant, { sandbox: await sandboxProbe });
  t.after(() => proxy.close());
  // A program planted earlier on the search path after resolution changes nothing.
  await script(early, "tool", "#!/bin/sh\necho planted\n");
  assert.equal((await run(proxy, ["tool"])).stdout.text, "original\n", "control: the resolved file runs");
  // Replacing the resolved file itself is refused.
  await script(join(s.base), "tool.new", "#!/bin/sh\necho swapped\n");
  await rename(join(s.base, "tool.new"), join(s.bin, "tool"));
  const err = await rejectsWith(run(proxy, ["tool"]), { tag: "denied", reason: "command-changed" });
  assert.match(err.message, /no longer the file the grant resolved/);
});
