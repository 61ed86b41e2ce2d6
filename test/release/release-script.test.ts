/**
 * `npm run release -- X.Y.Z` (bin/release.js) on a throwaway git repository shaped like this one:
 * the Unreleased section becomes the version's dated entry, package.json and package-lock.json get
 * the version, one commit and an annotated tag vX.Y.Z. Each refusal changes nothing and exits 1
 * with the reason, beside a control that releases.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { tempDir } from "../helpers/runtime.js";

const run = promisify(execFile);
const RELEASE = join(PROJECT_ROOT, "bin", "release.js");
/** git without the machine's own settings (signing, hooks), with an identity. */
const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "Rel Ease", GIT_AUTHOR_EMAIL: "rel@example.org", GIT_COMMITTER_NAME: "Rel Ease", GIT_COMMITTER_EMAIL: "rel@example.org" };

const CHANGELOG = `# Changelog

Intro.

## [Unreleased]

### Added

- A new thing.

## [0.1.0] - 2026-12-01

### Added

- The first things.
`;

const made: string[] = [];
after(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

async function repo(changelog = CHANGELOG): Promise<string> {
  const dir = await tempDir("clawhive-release-");
  made.push(dir);
  writeFileSync(join(dir, "package.json"), `{\n  "name": "clawhive",\n  "version": "0.1.0",\n  "type": "module"\n}\n`);
  writeFileSync(join(dir, "package-lock.json"), `${JSON.stringify({ name: "clawhive", version: "0.1.0", lockfileVersion: 3, requires: true, packages: { "": { name: "clawhive", version: "0.1.0" } } }, null, 2)}\n`);
  writeFileSync(join(dir, "CHANGELOG.md"), changelog);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: GIT_ENV, stdio: "ignore" });
  git("init", "--quiet", "-b", "main");
  git("add", ".");
  git("commit", "--quiet", "-m", "start");
  return dir;
}

async function release(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [RELEASE, ...args, "--root", dir], { env: GIT_ENV });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === "number" ? err.code : -1, stdout: err.stdout ?? "", stderr: err.stderr ?? "" };
  }
}

const gitOut = (dir: string, ...args: string[]) => execFileSync("git", args, { cwd: dir, env: GIT_ENV, encoding: "utf8" });

test("a release dates the Unreleased entry, bumps both versions, commits and tags", async () => {
  const dir = await repo();
  const result = await release(dir, ["0.2.0", "--date", "2026-12-08"]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^released 0\.2\.0: .* tagged v0\.2\.0\nnext: git push --follow-tags; npm publish/);
  const changelog = readFileSync(join(dir, "CHANGELOG.md"), "utf8");
  assert.equal(changelog, CHANGELOG.replace("## [Unreleased]\n", "## [Unreleased]\n\n## [0.2.0] - 2026-12-08\n"));
  assert.equal((JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version, "0.2.0");
  assert.equal(readFileSync(join(dir, "package.json"), "utf8"), `{\n  "name": "clawhive",\n  "version": "0.2.0",\n  "type": "module"\n}\n`);
  const lock = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8")) as { version: string; packages: Record<string, { version: string }> };
  assert.equal(lock.version, "0.2.0");
  assert.equal(lock.packages[""]!.version, "0.2.0");
  assert.equal(gitOut(dir, "status", "--porcelain"), "");
  assert.equal(gitOut(dir, "log", "-1", "--format=%s"), "release 0.2.0\n");
  assert.equal(gitOut(dir, "describe", "--exact-match", "HEAD").trim(), "v0.2.0");
  assert.equal(gitOut(dir, "cat-file", "-t", "v0.2.0").trim(), "tag", "not an annotated tag");
  assert.match(gitOut(dir, "tag", "-l", "--format=%(contents)", "v0.2.0"), /^clawhive 0\.2\.0\n\n### Added\n\n- A new thing\./);
  // The next release starts from the new, empty Unreleased: nothing to release yet.
  const again = await release(dir, ["0.2.1"]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /Unreleased lists no change/);
});

const REFUSALS: Array<{ name: string; args: string[]; prepare?: (dir: string) => void; changelog?: string; error: RegExp }> = [
  { name: "no version", args: [], error: /no version given/ },
  { name: "a leading v", args: ["v0.2.0"], error: /expected X\.Y\.Z \(semver, no leading v\), got "v0\.2\.0"/ },
  { name: "not semver", args: ["0.2"], error: /expected X\.Y\.Z/ },
  { name: "the current version", args: ["0.1.0"], error: /0\.1\.0 is not above the current 0\.1\.0/ },
  { name: "a lower version", args: ["0.0.9"], error: /is not above the current 0\.1\.0/ },
  { name: "a bad date", args: ["0.2.0", "--date", "8 Dec"], error: /--date: expected YYYY-MM-DD/ },
  { name: "an unknown option", args: ["0.2.0", "--push"], error: /unknown option --push/ },
  { name: "uncommitted changes", args: ["0.2.0"], prepare: (dir) => writeFileSync(join(dir, "notes.txt"), "x"), error: /uncommitted changes[\s\S]*notes\.txt/ },
  { name: "the tag exists", args: ["0.2.0"], prepare: (dir) => execFileSync("git", ["tag", "v0.2.0"], { cwd: dir, env: GIT_ENV }), error: /tag v0\.2\.0 exists already/ },
  { name: "no Unreleased section", args: ["0.2.0"], changelog: "# Changelog\n\n## [0.1.0] - 2026-12-01\n\n- The first things.\n", error: /no '## \[Unreleased\]' section/ },
  { name: "an empty Unreleased section", args: ["0.2.0"], changelog: "# Changelog\n\n## [Unreleased]\n\n### Added\n\n## [0.1.0] - 2026-12-01\n\n- The first things.\n", error: /Unreleased lists no change/ },
  { name: "an entry for the version already", args: ["0.2.0"], changelog: `${CHANGELOG}\n## [0.2.0] - 2026-11-30\n\n- Old.\n`, error: /has an entry for 0\.2\.0 already/ },
];

for (const refusal of REFUSALS) {
  test(`release refuses ${refusal.name}, changing nothing`, async () => {
    const dir = await repo(refusal.changelog);
    refusal.prepare?.(dir);
    const before = gitOut(dir, "status", "--porcelain");
    const result = await release(dir, refusal.args);
    assert.equal(result.code, 1, `exit code; stdout: ${result.stdout}`);
    assert.match(result.stderr, /^release: /);
    assert.match(result.stderr, refusal.error);
    assert.equal(gitOut(dir, "status", "--porcelain"), before, "the refusal changed files");
    assert.equal(gitOut(dir, "log", "--format=%s"), "start\n", "the refusal committed");
  });
}
