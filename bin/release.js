#!/usr/bin/env node
// `npm run release -- X.Y.Z [--date YYYY-MM-DD] [--root DIR]`: cuts a release from CHANGELOG.md.
// What is under "## [Unreleased]" becomes "## [X.Y.Z] - DATE" (a new, empty Unreleased above it),
// package.json and package-lock.json get the version, and the three are committed as
// "release X.Y.Z" and tagged vX.Y.Z (annotated, the entry as its message). It refuses, changing
// nothing, when the version is not semver or not above the current one, the work tree is not
// clean, the tag exists, or Unreleased lists nothing. It never pushes or publishes: it prints
// how. docs/releases.md has the whole procedure.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";

const USAGE = "usage: npm run release -- X.Y.Z [--date YYYY-MM-DD]";

function fail(message) {
  process.stderr.write(`release: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const options = { root: fileURLToPath(new URL("..", import.meta.url)), date: new Date().toISOString().slice(0, 10), version: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--root" || arg === "--date") {
      const value = argv[++i];
      if (value === undefined) fail(`${arg}: expected a value (${USAGE})`);
      options[arg.slice(2)] = value;
    } else if (arg.startsWith("-")) fail(`unknown option ${arg} (${USAGE})`);
    else if (options.version === undefined) options.version = arg;
    else fail(`one version only, got ${options.version} and ${arg} (${USAGE})`);
  }
  if (options.version === undefined) fail(`no version given (${USAGE})`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(options.date) || Number.isNaN(Date.parse(options.date))) fail(`--date: expected YYYY-MM-DD, got ${JSON.stringify(options.date)}`);
  return options;
}

const options = parseArgs(process.argv.slice(2));
const { root, version, date } = options;
const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

if (semver.valid(version) !== version) fail(`version: expected X.Y.Z (semver, no leading v), got ${JSON.stringify(version)}`);
const pkgPath = join(root, "package.json");
const lockPath = join(root, "package-lock.json");
const changelogPath = join(root, "CHANGELOG.md");
const pkgText = readFileSync(pkgPath, "utf8");
const current = JSON.parse(pkgText).version;
if (!semver.gt(version, current)) fail(`version: ${version} is not above the current ${current}`);

let status;
try {
  status = git("status", "--porcelain");
} catch (e) {
  fail(`${root} is not a git work tree: ${String(e.stderr ?? e).trim()}`);
}
if (status.trim() !== "") fail(`the work tree has uncommitted changes; commit or remove them first:\n${status.trimEnd()}`);
const tag = `v${version}`;
if (git("tag", "--list", tag).trim() !== "") fail(`tag ${tag} exists already`);

const changelog = readFileSync(changelogPath, "utf8");
const heading = /^## \[Unreleased\][^\n]*\n/m.exec(changelog);
if (heading === null) fail("CHANGELOG.md has no '## [Unreleased]' section to release");
if (new RegExp(`^## \\[${version.replace(/\./g, "\\.")}\\]`, "m").test(changelog)) fail(`CHANGELOG.md has an entry for ${version} already`);
const bodyStart = heading.index + heading[0].length;
const next = changelog.slice(bodyStart).search(/^## \[/m);
const body = changelog.slice(bodyStart, next === -1 ? undefined : bodyStart + next).trim();
if (!/^- /m.test(body)) fail("CHANGELOG.md: Unreleased lists no change; add what this release changes under it first");

const released = `${changelog.slice(0, heading.index)}## [Unreleased]\n\n## [${version}] - ${date}\n\n${body}\n\n${next === -1 ? "" : changelog.slice(bodyStart + next)}`;
writeFileSync(changelogPath, released.endsWith("\n") ? released : `${released}\n`);
// Only the version line changes in package.json, so its layout stays as it was written.
writeFileSync(pkgPath, pkgText.replace(/^(\s*"version":\s*")[^"]*(")/m, `$1${version}$2`));
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
lock.version = version;
if (lock.packages?.[""] !== undefined) lock.packages[""].version = version;
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);

try {
  git("add", "CHANGELOG.md", "package.json", "package-lock.json");
  git("commit", "--quiet", "-m", `release ${version}`);
  git("tag", "-a", "--cleanup=verbatim", tag, "-m", `clawhive ${version}\n\n${body}`);
} catch (e) {
  fail(`git refused (the files are written; see git status): ${String(e.stderr ?? e).trim()}`);
}
process.stdout.write(`released ${version}: CHANGELOG.md, package.json and package-lock.json committed ("release ${version}"), tagged ${tag}
next: git push --follow-tags; npm publish (its prepack builds the package)
`);
