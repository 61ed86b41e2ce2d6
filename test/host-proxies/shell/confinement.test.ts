/**
 * Adversarial table: a permitted command tries to reach what the sandbox must hide — the
 * runtime's environment, files outside the mounts, the host's /etc, other processes, the
 * network, read-only mounts. Each attack has a control on the same proxy that must work.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { StdioOptions } from "node:child_process";
import { open, readdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import type { TestContext } from "node:test";
import type { ExecResult, ShellProxy } from "../../../host-proxies/shell/index.js";
import type { Scratch } from "./_fixtures.js";
import { needsSandbox, OUTSIDE_SECRET, proxyFor, rejectsWith, run, scratch } from "./_fixtures.js";

const COMMANDS = ["cat", "printenv", "ls", "touch", "mkdir", "uname", "id"];
const ok = (r: ExecResult): void => assert.equal(r.exitCode, 0, `exit ${r.exitCode}: ${r.stderr.text}`);
const failed = (r: ExecResult): void => assert.notEqual(r.exitCode, 0, `should have failed: ${r.stdout.text}`);
const catsInside = async (p: ShellProxy): Promise<void> => {
  const r = await run(p, ["cat", "/work/inside.txt"]);
  ok(r);
  assert.equal(r.stdout.text, "inside");
};

interface Row {
  name: string;
  attack: (p: ShellProxy, s: Scratch) => Promise<void>;
  control: (p: ShellProxy, s: Scratch) => Promise<void>;
}

const ROWS: Row[] = [
  {
    name: "the runtime's environment does not reach the child",
    attack: async (p) => {
      const r = await run(p, ["printenv"]);
      ok(r);
      assert.doesNotMatch(r.stdout.text, /CLAWHIVE_CANARY|canary-value/);
      const keys = r.stdout.text.trim().split("\n").map((l) => l.split("=")[0]).sort();
      assert.deepEqual(keys, ["HOME", "LANG", "PATH", "PWD", "TERM"]);
    },
    control: async (p) => assert.equal((await run(p, ["printenv", "PATH"])).stdout.text, "/usr/bin:/bin\n"),
  },
  {
    name: "an outside file by its host path does not exist",
    attack: async (p, s) => {
      const r = await run(p, ["cat", join(s.outside, "secret.txt")]);
      failed(r);
      assert.doesNotMatch(r.stdout.text, new RegExp(OUTSIDE_SECRET));
    },
    control: catsInside,
  },
  {
    name: "'..' from the mount reaches the sandbox root, not the host",
    attack: async (p) => {
      const r = await run(p, ["cat", "../outside/secret.txt"], { cwd: "/work" });
      failed(r);
      assert.doesNotMatch(r.stdout.text, new RegExp(OUTSIDE_SECRET));
    },
    control: async (p) => assert.equal((await run(p, ["cat", "inside.txt"], { cwd: "/work" })).stdout.text, "inside"),
  },
  {
    name: "a symlink planted in the mount resolves inside the sandbox",
    attack: async (p, s) => {
      await symlink(join(s.outside, "secret.txt"), join(s.work, "link"));
      const r = await run(p, ["cat", "/work/link"]);
      failed(r);
      assert.doesNotMatch(r.stdout.text, new RegExp(OUTSIDE_SECRET));
    },
    control: async (p, s) => {
      await symlink("inside.txt", join(s.work, "inner-link"));
      assert.equal((await run(p, ["cat", "/work/inner-link"])).stdout.text, "inside");
    },
  },
  {
    name: "the host's /etc is not there (hostname, shadow, gitconfig)",
    attack: async (p) => {
      for (const file of ["/etc/hostname", "/etc/shadow", "/etc/gitconfig", "/etc/ssh"]) failed(await run(p, ["cat", file]));
      const passwd = await run(p, ["cat", "/etc/passwd"]);
      assert.deepEqual(passwd.stdout.text.trim().split("\n").map((l) => l.split(":")[0]).filter((u) => u !== "sandbox"), ["root", "nobody"]);
    },
    control: async (p) => assert.match((await run(p, ["id"])).stdout.text, /^uid=\d+\(\w+\)/),
  },
  {
    name: "own PID namespace: PID 1 is bwrap's init, no host processes",
    attack: async (p) => {
      assert.equal((await run(p, ["cat", "/proc/1/comm"])).stdout.text, "bwrap\n");
      const pids = (await run(p, ["ls", "/proc"])).stdout.text.split("\n").filter((e) => /^\d+$/.test(e));
      assert.ok(pids.length <= 4, `processes visible: ${pids.join(" ")}`);
    },
    control: catsInside,
  },
  {
    name: "own network namespace: loopback only",
    attack: async (p) => {
      const r = await run(p, ["cat", "/proc/net/dev"]);
      ok(r);
      const ifaces = r.stdout.text.split("\n").slice(2).map((l) => l.split(":")[0]?.trim()).filter(Boolean);
      assert.deepEqual(ifaces, ["lo"]);
    },
    control: catsInside,
  },
  {
    name: "own UTS namespace: the host name is not shown",
    attack: async (p) => assert.equal((await run(p, ["uname", "-n"])).stdout.text, "clawhive\n"),
    control: async (p) => assert.equal((await run(p, ["uname", "-s"])).stdout.text, "Linux\n"),
  },
  {
    name: "a read-only mount refuses writes",
    attack: async (p, s) => {
      failed(await run(p, ["touch", "/data/new.txt"]));
      assert.deepEqual(await readdir(s.outside), ["secret.txt"]);
    },
    control: async (p, s) => {
      ok(await run(p, ["touch", "/work/new.txt"]));
      assert.ok((await readdir(s.work)).includes("new.txt"));
    },
  },
  {
    name: "the sandbox root and system dirs are read-only; /tmp and HOME are private and writable",
    attack: async (p) => {
      failed(await run(p, ["mkdir", "/evil"]));
      failed(await run(p, ["touch", "/usr/evil"]));
      failed(await run(p, ["touch", "/etc/passwd"]));
    },
    control: async (p) => {
      ok(await run(p, ["touch", "/tmp/x"]));
      ok(await run(p, ["mkdir", "/tmp/home/.cache"]));
    },
  },
  {
    name: "no descriptor of a mount directory leaks into the command",
    attack: async (p) => {
      const lines = (await run(p, ["ls", "-l", "/proc/self/fd/"])).stdout.text.trim().split("\n").slice(1);
      // 0-2 are stdio, one is ls's own listing of /proc/self/fd; anything else must be /dev/null.
      const others = lines.filter((l) => !/ [0-2] -> /.test(l) && !/-> \/proc\/\d+\/fd$/.test(l));
      assert.ok(others.every((l) => l.endsWith("-> /dev/null")), `descriptors: ${others.join("; ")}`);
    },
    control: catsInside,
  },
];

async function setup(t: TestContext): Promise<{ s: Scratch; proxy: ShellProxy }> {
  const s = await scratch(t, { "work/inside.txt": "inside" });
  const proxy = await proxyFor(t, s, {
    commands: COMMANDS,
    mounts: [{ guest: "/work", host: s.work, mode: "rw" }, { guest: "/data", host: s.outside, mode: "ro" }],
  });
  return { s, proxy };
}

test("confinement: table", await needsSandbox(), async (t) => {
  process.env.CLAWHIVE_CANARY = "canary-value";
  t.after(() => delete process.env.CLAWHIVE_CANARY);
  for (const row of ROWS) {
    await t.test(row.name, async (tt) => {
      const { s, proxy } = await setup(tt);
      await row.attack(proxy, s);
      await row.control(proxy, s);
    });
  }
});

test("confinement: a mount's host dir swapped for a symlink after creation still binds the original", await needsSandbox(), async (t) => {
  const { s, proxy } = await setup(t);
  await rename(s.work, `${s.work}-moved`);
  await symlink(s.outside, s.work);
  const r = await run(proxy, ["ls", "/work"]);
  assert.equal(r.stdout.text, "inside.txt\n", "the directory opened at creation, not the symlink's target");
  assert.doesNotMatch((await run(proxy, ["cat", "/work/secret.txt"])).stdout.text, new RegExp(OUTSIDE_SECRET));
});

test("confinement: a nested mount point replaced by a symlink refuses the run", await needsSandbox(), async (t) => {
  const s = await scratch(t, { "work/inner/orig.txt": "orig", "work/inside.txt": "inside" });
  const proxy = await proxyFor(t, s, {
    commands: COMMANDS,
    mounts: [{ guest: "/work", host: s.work, mode: "rw" }, { guest: "/work/inner", host: join(s.work, "inner"), mode: "ro" }],
  });
  assert.equal((await run(proxy, ["cat", "/work/inner/orig.txt"])).stdout.text, "orig", "control: before the swap");
  // What a plugin with write access to /work could do to move the read-only mount.
  await rename(join(s.work, "inner"), join(s.work, "inner-old"));
  await symlink("../../usr/bin", join(s.work, "inner"));
  await rejectsWith(run(proxy, ["cat", "/work/inside.txt"]), { tag: "io" });
  await writeFile(join(s.work, "marker"), "");
  assert.equal(await readFile(join(s.work, "inner-old", "orig.txt"), "utf8"), "orig");
});

test("confinement: cwd through a symlink is refused; a missing cwd is not-found", await needsSandbox(), async (t) => {
  const { s, proxy } = await setup(t);
  await symlink(s.outside, join(s.work, "out"));
  await rejectsWith(run(proxy, ["ls"], { cwd: "/work/out" }), { tag: "denied", reason: "cwd-outside-mount" });
  await rejectsWith(run(proxy, ["ls"], { cwd: "/work/missing" }), { tag: "not-found" });
  await rejectsWith(run(proxy, ["ls"], { cwd: "/work/inside.txt" }), { tag: "not-found" });
  assert.equal((await run(proxy, ["ls"], { cwd: "/work" })).exitCode, 0, "control");
});

test("confinement: a descriptor the runtime inherited is covered with /dev/null in the command", await needsSandbox(), async (t) => {
  const s = await scratch(t, { "work/inside.txt": "inside" });
  const dir = await open(s.outside, "r");
  t.after(() => dir.close());
  const helper = join(dirname(fileURLToPath(import.meta.url)), "_leak-child.js");
  const stdio: StdioOptions = ["ignore", "pipe", "pipe", ...Array<"ignore">(37).fill("ignore"), dir.fd];
  const result = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [helper, s.work], { stdio });
    let text = "";
    child.stdout?.on("data", (d: Buffer) => (text += d.toString("utf8")));
    child.on("error", reject);
    child.on("close", () => resolve(text));
  });
  const seen = JSON.parse(result) as { runtimeSees: string[]; stdout: string; stderr: string };
  assert.deepEqual(seen.runtimeSees, ["secret.txt"], "control: the runtime really holds the outside directory at 40");
  assert.match(seen.stdout, /40 -> \/dev\/null/);
  assert.doesNotMatch(seen.stdout + seen.stderr, /secret\.txt/);
});
