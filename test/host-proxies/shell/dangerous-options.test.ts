/**
 * Adversarial table: argument injection through programs the manifest allows. Every attack is
 * refused by the proxy's default table (`dangerous-option`) and every control — the nearest
 * harmless argv — is accepted by the same grant. Canonicalisation only: nothing runs.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { canonicalizeExec } from "../../../host-proxies/shell/index.js";
import type { ResolvedShellGrant } from "../../../host-proxies/shell/index.js";
import { grantFor, scratch, script, throwsWith } from "./_fixtures.js";

const PROGRAMS = ["rg", "find", "sort", "tar", "zip", "rsync", "git", "sed", "cat"];

interface Row {
  name: string;
  attack: string[];
  control: string[];
}

const ROWS: Row[] = [
  // ripgrep: preprocessors and decompressors run other programs
  { name: "rg --pre=value", attack: ["rg", "--pre=sh", "x"], control: ["rg", "--pretty", "x"] },
  { name: "rg --pre value", attack: ["rg", "--pre", "sh", "x"], control: ["rg", "-e", "pre", "x"] },
  { name: "rg --pre after the pattern (getopt permutes)", attack: ["rg", "x", ".", "--pre=sh"], control: ["rg", "x", ".", "--hidden"] },
  { name: "rg --pre-glob", attack: ["rg", "--pre-glob=*", "x"], control: ["rg", "--glob=*.ts", "x"] },
  { name: "rg --hostname-bin", attack: ["rg", "--hostname-bin=/work/x", "x"], control: ["rg", "--hyperlink-format=none", "x"] },
  { name: "rg -z alone", attack: ["rg", "-z", "x"], control: ["rg", "-i", "x"] },
  { name: "rg -z inside a cluster", attack: ["rg", "-inz", "x"], control: ["rg", "-in", "x"] },
  { name: "rg --search-zip abbreviated", attack: ["rg", "--search-z", "x"], control: ["rg", "--sort=path", "x"] },
  { name: "rg --pre after -- is an operand", attack: ["rg", "--pre=sh", "--", "x"], control: ["rg", "--", "--pre=sh"] },
  // find: actions
  { name: "find -exec", attack: ["find", ".", "-exec", "sh", "{}", ";"], control: ["find", ".", "-name", "*.c"] },
  { name: "find -execdir", attack: ["find", ".", "-execdir", "id", ";"], control: ["find", ".", "-type", "f"] },
  { name: "find -ok / -okdir", attack: ["find", ".", "-okdir", "id", ";"], control: ["find", ".", "-print"] },
  { name: "find -delete", attack: ["find", ".", "-delete"], control: ["find", ".", "-depth"] },
  { name: "find -fprint writes a file", attack: ["find", ".", "-fprint", "/work/x"], control: ["find", ".", "-print0"] },
  { name: "find -fprintf / -fls", attack: ["find", ".", "-fls", "/work/x"], control: ["find", ".", "-ls"] },
  { name: "find -exec after -- (still the expression)", attack: ["find", "--", ".", "-exec", "id", ";"], control: ["find", "--", ".", "-name", "x"] },
  // sort: writes and helper programs
  { name: "sort -o", attack: ["sort", "-o", "/work/x", "in"], control: ["sort", "-r", "in"] },
  { name: "sort -o attached in a cluster", attack: ["sort", "-ro/work/x", "in"], control: ["sort", "-rn", "in"] },
  { name: "sort --output=value", attack: ["sort", "--output=/work/x", "in"], control: ["sort", "--reverse", "in"] },
  { name: "sort --compress-program abbreviated", attack: ["sort", "--compress-prog=sh", "in"], control: ["sort", "--check", "in"] },
  { name: "sort -T", attack: ["sort", "-T", "/work", "in"], control: ["sort", "-t,", "in"] },
  // tar: every program-running option, old-style clusters, absolute names
  { name: "tar --to-command", attack: ["tar", "-xf", "a.tar", "--to-command=sh"], control: ["tar", "-xf", "a.tar", "--to-stdout"] },
  { name: "tar -I", attack: ["tar", "-I", "sh", "-xf", "a.tar"], control: ["tar", "-z", "-xf", "a.tar"] },
  { name: "tar --use-compress-program abbreviated", attack: ["tar", "--use=sh", "-xf", "a.tar"], control: ["tar", "--gzip", "-xf", "a.tar"] },
  { name: "tar old-style cluster with I", attack: ["tar", "xIf", "sh", "a.tar"], control: ["tar", "xzf", "a.tar"] },
  { name: "tar --checkpoint-action=exec", attack: ["tar", "-cf", "a.tar", "--checkpoint=1", "--checkpoint-action=exec=sh", "d"], control: ["tar", "-cf", "a.tar", "--checkpoint=1", "d"] },
  { name: "tar -F / --info-script", attack: ["tar", "-cf", "a.tar", "-F", "sh", "d"], control: ["tar", "-cf", "a.tar", "d"] },
  { name: "tar --new-volume-script", attack: ["tar", "-cf", "a.tar", "--new-volume-script=sh", "d"], control: ["tar", "-cf", "a.tar", "--verbose", "d"] },
  { name: "tar --rsh-command", attack: ["tar", "-xf", "h:a.tar", "--rsh-command=/work/x"], control: ["tar", "-xf", "a.tar"] },
  { name: "tar --index-file writes elsewhere", attack: ["tar", "-cvf", "a.tar", "--index-file=/work/x", "d"], control: ["tar", "-cvf", "a.tar", "d"] },
  { name: "tar -P keeps absolute member names", attack: ["tar", "-xPf", "a.tar"], control: ["tar", "-xf", "a.tar"] },
  { name: "tar --absolute-names", attack: ["tar", "--absolute-names", "-xf", "a.tar"], control: ["tar", "--keep-old-files", "-xf", "a.tar"] },
  // zip / rsync
  { name: "zip -TT", attack: ["zip", "-TT", "sh", "a.zip", "f"], control: ["zip", "-r", "a.zip", "f"] },
  { name: "rsync -e", attack: ["rsync", "-e", "sh", "a", "b"], control: ["rsync", "-a", "a", "b"] },
  { name: "rsync --rsync-path", attack: ["rsync", "--rsync-path=sh", "a", "b"], control: ["rsync", "--archive", "a", "b"] },
  // git: global options that point git at other config, repos or programs
  { name: "git -c", attack: ["git", "-c", "core.pager=sh", "status"], control: ["git", "status"] },
  { name: "git --config-env", attack: ["git", "--config-env=core.pager=X", "log"], control: ["git", "--no-pager", "log"] },
  { name: "git -C", attack: ["git", "-C", "/etc", "status"], control: ["git", "status", "-s"] },
  { name: "git --git-dir", attack: ["git", "--git-dir=/work/evil", "status"], control: ["git", "--no-optional-locks", "status"] },
  { name: "git --work-tree", attack: ["git", "--work-tree=/", "status"], control: ["git", "--literal-pathspecs", "status"] },
  { name: "git --exec-path", attack: ["git", "--exec-path=/work", "status"], control: ["git", "--version"] },
  { name: "git -p (paginate)", attack: ["git", "-p", "log"], control: ["git", "-P", "log"] },
  { name: "git alias or git-<name> program", attack: ["git", "pwn"], control: ["git", "log"] },
  { name: "git difftool", attack: ["git", "difftool", "-x", "sh"], control: ["git", "diff"] },
  { name: "git help runs man", attack: ["git", "help", "log"], control: ["git", "log", "-1"] },
  { name: "git --help runs man", attack: ["git", "log", "--help"], control: ["git", "log", "--oneline"] },
  // git: subcommand options
  { name: "git --upload-pack", attack: ["git", "fetch", "--upload-pack=sh", "origin"], control: ["git", "fetch", "--prune", "origin"] },
  { name: "git clone -u", attack: ["git", "clone", "-u", "sh", "a", "b"], control: ["git", "clone", "-q", "a", "b"] },
  { name: "git clone -c", attack: ["git", "clone", "-c", "core.fsmonitor=sh", "a", "b"], control: ["git", "clone", "--depth=1", "a", "b"] },
  { name: "git push --receive-pack", attack: ["git", "push", "--receive-pack=sh", "o"], control: ["git", "push", "--dry-run", "o"] },
  { name: "git push --exec", attack: ["git", "push", "--exec=sh", "o"], control: ["git", "push", "--tags", "o"] },
  { name: "git rebase -x", attack: ["git", "rebase", "-x", "sh", "main"], control: ["git", "rebase", "main"] },
  { name: "git rebase --exec", attack: ["git", "rebase", "--exec=sh", "main"], control: ["git", "rebase", "--onto", "a", "main"] },
  { name: "git log --output", attack: ["git", "log", "--output=/work/.git/config"], control: ["git", "log", "--output-indicator-new=+"] },
  { name: "git diff --ext-diff", attack: ["git", "diff", "--ext-diff"], control: ["git", "diff", "--no-ext-diff"] },
  { name: "git diff --textconv", attack: ["git", "diff", "--textconv"], control: ["git", "diff", "--no-textconv"] },
  { name: "git grep -O (open in pager)", attack: ["git", "grep", "-Osh", "x"], control: ["git", "grep", "-n", "x"] },
  { name: "git archive -o", attack: ["git", "archive", "-o", "/work/x", "HEAD"], control: ["git", "archive", "HEAD"] },
  { name: "git format-patch -o", attack: ["git", "format-patch", "-o", "/work", "HEAD~1"], control: ["git", "format-patch", "--stdout", "HEAD~1"] },
  { name: "git submodule foreach", attack: ["git", "submodule", "foreach", "sh"], control: ["git", "submodule", "status"] },
  { name: "git bisect run", attack: ["git", "bisect", "run", "sh"], control: ["git", "bisect", "log"] },
  { name: "git init --template", attack: ["git", "init", "--template=/work/t"], control: ["git", "init", "-q"] },
  { name: "git config --global", attack: ["git", "config", "--global", "a.b", "c"], control: ["git", "config", "a.b", "c"] },
  { name: "git commit -o is harmless, archive -o is not", attack: ["git", "archive", "-o", "x"], control: ["git", "commit", "-o", "-m", "x", "f"] },
  { name: "git pathspec after -- is an operand", attack: ["git", "log", "--output=x", "--", "f"], control: ["git", "log", "--", "--output=x"] },
];

async function setup(t: TestContext): Promise<ResolvedShellGrant> {
  const s = await scratch(t);
  for (const name of PROGRAMS) await script(s.bin, name, "#!/bin/sh\nexit 0\n");
  return grantFor({ commands: PROGRAMS, mounts: [{ guest: "/work", host: s.work, mode: "rw" }], resolve: { searchPath: s.bin } });
}

test("dangerous options: table", async (t) => {
  const grant = await setup(t);
  for (const row of ROWS) {
    await t.test(row.name, () => {
      const err = throwsWith(() => canonicalizeExec({ argv: row.attack }, { grant }), { tag: "denied", reason: "dangerous-option" });
      assert.match(err.message, new RegExp(`^${row.attack[0]}: `));
      const canonical = canonicalizeExec({ argv: row.control }, { grant });
      assert.deepEqual(canonical.argv, row.control, "control: accepted unchanged");
    });
  }
});

test("dangerous options: the message names the argument and what it was read as", async (t) => {
  const grant = await setup(t);
  const err = throwsWith(() => canonicalizeExec({ argv: ["sort", "-rno/work/x"] }, { grant }), { tag: "denied", reason: "dangerous-option" });
  assert.match(err.message, /"-rno\/work\/x" is refused \(read as -o\)/);
});

test("dangerous options: hardening the proxy adds", async (t) => {
  const grant = await setup(t);
  const git = canonicalizeExec({ argv: ["git", "status"] }, { grant });
  assert.deepEqual(git.args.slice(0, 3), ["--no-pager", "-c", "core.fsmonitor=false"]);
  assert.equal(git.args.at(-1), "status");
  assert.ok(git.args.includes("core.hooksPath=/dev/null"));
  assert.equal(git.env.GIT_ALLOW_PROTOCOL, "");
  assert.equal(git.env.GIT_CONFIG_NOSYSTEM, "1");
  assert.equal(git.env.GIT_CONFIG_GLOBAL, "/dev/null");
  assert.equal(git.env.GIT_TERMINAL_PROMPT, "0");
  assert.deepEqual(git.argv, ["git", "status"], "the decided argv is the guest's");
  assert.deepEqual(canonicalizeExec({ argv: ["sed", "s/a/b/"] }, { grant }).args, ["--sandbox", "s/a/b/"]);
  assert.deepEqual(canonicalizeExec({ argv: ["tar", "xf", "a.tar"] }, { grant }).env, { TAR_OPTIONS: "--force-local" });
  const cat = canonicalizeExec({ argv: ["cat", "-n", "f"] }, { grant });
  assert.deepEqual([cat.args, cat.env], [["-n", "f"], {}]);
});
