/**
 * The "writes to config that a permitted command later obeys" case: a plugin plants git config
 * (or hooks) in a repository it can write, then runs a permitted git command. Every row first
 * proves the trap is real — the same argv run by plain git outside the proxy runs the planted
 * program and leaves a marker — then runs it through the proxy: no marker, and either a normal
 * result or a structured refusal. A control runs the same command on a clean repository.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { chmod, mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import type { ShellProxy } from "../../../host-proxies/shell/index.js";
import type { Expected } from "./_fixtures.js";
import { needsSandbox, proxyFor, rejectsWith, run, scratch } from "./_fixtures.js";

const PLAIN_ENV = { PATH: "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: "/nonexistent" };

function git(repo: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: repo, env: PLAIN_ENV, encoding: "utf8" });
}

async function makeRepo(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  git(dir, "init", "-q");
  git(dir, "config", "user.email", "t@example.com");
  git(dir, "config", "user.name", "t");
  await writeFile(join(dir, "f.txt"), "one\n");
  git(dir, "add", ".");
  git(dir, "commit", "-qm", "init");
  await writeFile(join(dir, "f.txt"), "two\n");
}

const markers = async (repo: string): Promise<string[]> => (await readdir(repo)).filter((n) => n.startsWith("pwned-"));

interface Row {
  name: string;
  plant: (repo: string) => Promise<void>;
  argv: string[];
  /** Through the proxy: a refusal, or a result (checked by `exit`). */
  expected: Expected | { exit: "zero" | "nonzero" };
}

const REFUSED: Expected = { tag: "denied", reason: "dangerous-config" };
const config = (key: string, value: string) => async (repo: string) => void git(repo, "config", key, value);

const ROWS: Row[] = [
  { name: "core.fsmonitor runs on git status", plant: config("core.fsmonitor", "touch pwned-fsmonitor; false"), argv: ["git", "status", "--short"], expected: { exit: "zero" } },
  { name: "core.editor runs on git commit", plant: config("core.editor", "touch pwned-editor; false"), argv: ["git", "commit", "-a"], expected: { exit: "nonzero" } },
  {
    name: "a planted pre-commit hook runs on git commit",
    plant: async (repo) => {
      await writeFile(join(repo, ".git/hooks/pre-commit"), "#!/bin/sh\ntouch pwned-hook\n");
      await chmod(join(repo, ".git/hooks/pre-commit"), 0o755);
    },
    argv: ["git", "commit", "-qam", "x"],
    expected: { exit: "zero" },
  },
  {
    name: "core.hooksPath pointing into the working tree",
    plant: async (repo) => {
      await mkdir(join(repo, "hooks"));
      await writeFile(join(repo, "hooks/pre-commit"), "#!/bin/sh\ntouch pwned-hookspath\n");
      await chmod(join(repo, "hooks/pre-commit"), 0o755);
      git(repo, "config", "core.hooksPath", "hooks");
    },
    argv: ["git", "commit", "-qam", "x"],
    expected: { exit: "zero" },
  },
  {
    name: "a filter driver's clean command runs on git diff",
    plant: async (repo) => {
      await writeFile(join(repo, ".gitattributes"), "*.txt filter=pwn\n");
      git(repo, "config", "filter.pwn.clean", "touch pwned-filter; cat");
    },
    argv: ["git", "diff"],
    expected: REFUSED,
  },
  {
    name: "a diff driver's textconv runs on git diff",
    plant: async (repo) => {
      await writeFile(join(repo, ".gitattributes"), "*.txt diff=pwn\n");
      git(repo, "config", "diff.pwn.textconv", "touch pwned-textconv; cat");
    },
    argv: ["git", "diff"],
    expected: REFUSED,
  },
  { name: "diff.external runs on git diff", plant: config("diff.external", "touch pwned-external; true"), argv: ["git", "diff"], expected: REFUSED },
  {
    name: "an include.path pulls in a filter driver",
    plant: async (repo) => {
      await writeFile(join(repo, "evil.cfg"), "[filter \"pwn\"]\n\tclean = touch pwned-include; cat\n");
      await writeFile(join(repo, ".gitattributes"), "*.txt filter=pwn\n");
      git(repo, "config", "include.path", "../evil.cfg");
    },
    argv: ["git", "diff"],
    expected: REFUSED,
  },
  {
    name: "protocol.ext.allow=always + an ext:: remote runs on git fetch (beats -c protocol.allow=never)",
    plant: async (repo) => {
      git(repo, "config", "protocol.ext.allow", "always");
      git(repo, "remote", "add", "evil", "ext::sh -c touch% pwned-ext");
    },
    argv: ["git", "fetch", "evil"],
    expected: { exit: "nonzero" },
  },
  { name: "an alias with '!' runs a shell", plant: config("alias.st", "!touch pwned-alias"), argv: ["git", "st"], expected: { tag: "denied", reason: "dangerous-option" } },
];

/** Plain git, outside the proxy; for the ext row also with `-c protocol.allow=never`. */
function plainRun(repo: string, row: Row): void {
  const args = row.name.startsWith("protocol.ext") ? ["-c", "protocol.allow=never", ...row.argv.slice(1)] : row.argv.slice(1);
  spawnSync("git", args, { cwd: repo, env: PLAIN_ENV, stdio: "ignore", timeout: 60_000 });
}

async function setup(t: TestContext): Promise<{ proxy: ShellProxy; work: string }> {
  const s = await scratch(t);
  const proxy = await proxyFor(t, s, { commands: ["git"] });
  return { proxy, work: s.work };
}

test("git config traps: table", await needsSandbox(), async (t) => {
  for (const row of ROWS) {
    await t.test(row.name, async (tt) => {
      const { proxy, work } = await setup(tt);
      const proof = join(work, "proof");
      await makeRepo(proof);
      await row.plant(proof);
      plainRun(proof, row);
      assert.ok((await markers(proof)).length > 0, "the trap is real: plain git ran the planted program");

      const repo = join(work, "repo");
      await makeRepo(repo);
      await row.plant(repo);
      const attack = run(proxy, row.argv, { cwd: "/work/repo" });
      if ("tag" in row.expected) await rejectsWith(attack, row.expected);
      else {
        const r = await attack;
        if (row.expected.exit === "zero") assert.equal(r.exitCode, 0, r.stderr.text);
        else assert.notEqual(r.exitCode, 0);
      }
      assert.deepEqual(await markers(repo), [], "the planted program did not run");

      const clean = join(work, "clean");
      await makeRepo(clean);
      const control = await run(proxy, row.argv[1] === "st" ? ["git", "status"] : row.argv, { cwd: "/work/clean" });
      assert.ok(control.exitCode === 0 || row.argv[1] === "fetch" || row.argv.includes("-a"), `control: ${control.stderr.text}`);
    });
  }
});

test("git config traps: a clean repository works as usual through the proxy", await needsSandbox(), async (t) => {
  const { proxy, work } = await setup(t);
  await makeRepo(join(work, "repo"));
  const status = await run(proxy, ["git", "status", "--short"], { cwd: "/work/repo" });
  assert.equal(status.stdout.text, " M f.txt\n");
  const diff = await run(proxy, ["git", "diff"], { cwd: "/work/repo" });
  assert.match(diff.stdout.text, /^-one\n\+two\n/m);
  const commit = await run(proxy, ["git", "commit", "-qam", "second"], { cwd: "/work/repo" });
  assert.equal(commit.exitCode, 0, commit.stderr.text);
  assert.equal((await run(proxy, ["git", "log", "--format=%s"], { cwd: "/work/repo" })).stdout.text, "second\ninit\n");
});

test("git config traps: outside a repository git says so and runs nothing else", await needsSandbox(), async (t) => {
  const { proxy } = await setup(t);
  const r = await run(proxy, ["git", "status"]);
  assert.notEqual(r.exitCode, 0);
  assert.match(r.stderr.text, /not a git repository/);
});
