/**
 * House rule: CHANGELOG.md (Keep a Changelog) has a dated entry listing changes for the version
 * package.json says, an Unreleased section on top, and its versions newest first; the lock file
 * carries the same version. `npm run release` (bin/release.js) keeps them so.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import semver from "semver";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";

const read = (name: string) => readFileSync(join(PROJECT_ROOT, name), "utf8");

/** The problems of a changelog for `version`; none when it is kept. */
function changelogProblems(text: string, version: string): string[] {
  const problems: string[] = [];
  const headings = [...text.matchAll(/^## \[([^\]]+)\](.*)$/gm)].map((m) => ({ name: m[1]!, rest: m[2]!.trim(), index: m.index }));
  if (headings[0]?.name !== "Unreleased") problems.push("the first entry is not '## [Unreleased]'");
  const releases = headings.filter((h) => h.name !== "Unreleased");
  for (const h of releases) {
    if (semver.valid(h.name) !== h.name) problems.push(`'## [${h.name}]' is not a semver version`);
    if (!/^- \d{4}-\d{2}-\d{2}$/.test(h.rest)) problems.push(`'## [${h.name}]' has no ' - YYYY-MM-DD' date`);
  }
  const versions = releases.map((h) => h.name).filter((name) => semver.valid(name) === name);
  const sorted = [...versions].sort(semver.rcompare);
  if (versions.join() !== sorted.join()) problems.push(`versions are not newest first: ${versions.join(", ")}`);
  const at = headings.findIndex((h) => h.name === version);
  if (at === -1) problems.push(`no entry for ${version}, package.json's version`);
  else {
    const body = text.slice(headings[at]!.index, headings[at + 1]?.index);
    if (!/^- /m.test(body)) problems.push(`the entry for ${version} lists no change`);
  }
  return problems;
}

test("CHANGELOG.md has a dated entry for package.json's version, below Unreleased", () => {
  const version = (JSON.parse(read("package.json")) as { version: string }).version;
  assert.deepEqual(changelogProblems(read("CHANGELOG.md"), version), []);
  const lock = JSON.parse(read("package-lock.json")) as { version: string; packages: Record<string, { version?: string }> };
  assert.equal(lock.version, version, "package-lock.json's version");
  assert.equal(lock.packages[""]?.version, version, "package-lock.json's root package version");
});

const GOOD = "# Changelog\n\n## [Unreleased]\n\n## [0.2.0] - 2026-12-08\n\n- B.\n\n## [0.1.0] - 2026-12-01\n\n- A.\n";

test("the changelog check passes a kept changelog and names each way one is not", () => {
  assert.deepEqual(changelogProblems(GOOD, "0.2.0"), [], "control: a kept changelog");
  const cases: Array<[string, string, RegExp]> = [
    [GOOD, "0.3.0", /no entry for 0\.3\.0/],
    [GOOD.replace("## [Unreleased]\n\n", ""), "0.2.0", /first entry is not '## \[Unreleased\]'/],
    [GOOD.replace(" - 2026-12-08", ""), "0.2.0", /'## \[0\.2\.0\]' has no ' - YYYY-MM-DD' date/],
    [GOOD.replace("- B.\n", ""), "0.2.0", /the entry for 0\.2\.0 lists no change/],
    [GOOD.replace("[0.1.0]", "[0.3.0]"), "0.2.0", /not newest first: 0\.2\.0, 0\.3\.0/],
    [GOOD.replace("[0.1.0]", "[v0.1]"), "0.2.0", /'## \[v0\.1\]' is not a semver version/],
  ];
  for (const [text, version, problem] of cases) assert.match(changelogProblems(text, version).join("\n"), problem);
});
