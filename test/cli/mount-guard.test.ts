/**
 * The command line refuses mounts of the kernel, the system and the runtime's own state with
 * the flag or field named and a non-zero exit: `clawhive call --mount` and `clawhive agent
 * validate`, each beside a control that passes.
 */
import assert from "node:assert/strict";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { cliPlace, clawhiveIn, type CliPlace } from "./fixtures.js";

let place: CliPlace;
let own = "";

before(async () => {
  place = await cliPlace("clawhive-cli-mounts-");
  own = join(place.root, "own");
  await mkdir(own);
  await writeFile(join(own, "note.txt"), "hello");
  await mkdir(place.data, { recursive: true });
  await symlink("/etc", join(place.root, "to-etc"));
});
after(() => rm(place.root, { recursive: true, force: true }));

const CALLS: Array<[what: string, mount: () => string, refused: RegExp | undefined]> = [
  ["/proc", () => "/w=/proc", /^clawhive: --mount \/w=\/proc: refused: \/proc is the kernel's process table/m],
  ["a symlink to /etc, rw", () => `/w=${join(place.root, "to-etc")}:rw`, /--mount .*: refused: .*resolved: \/etc\)/],
  ["the data dir", () => `/w=${place.data}`, /--mount .*: refused: .*the runtime's data dir/],
  ["a parent of the data dir via ..", () => `/w=${own}/..`, /--mount .*: refused: .*contains .*data dir/],
  ["a folder of its own (control)", () => `/w=${own}`, undefined],
];

for (const [what, mount, refused] of CALLS) {
  test(`clawhive call --mount ${what} → ${refused === undefined ? "runs" : "refused, non-zero exit"}`, () => {
    const result = clawhiveIn(place, "call", "files.read_file", '{"path":"/w/note.txt"}', "--mount", mount(), "--agents", place.agents);
    if (refused === undefined) {
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /hello/);
      return;
    }
    assert.notEqual(result.code, 0, result.stdout);
    assert.match(result.stderr, refused);
  });
}

test("clawhive agent validate names the field of a forbidden mount; a workspace mount validates", async () => {
  const manifest = (host: string) => `name: probe
description: d
model: { provider: anthropic, id: m }
system_prompt: s
plugins:
  - { name: files, version: "*" }
grants:
  fs.read:
    mounts: [{ guest: /m, host: "${host}" }]
`;
  const bad = join(place.root, "bad", "probe.yaml");
  const good = join(place.root, "good", "probe.yaml");
  await mkdir(join(place.root, "bad"));
  await mkdir(join(place.root, "good"));
  await writeFile(bad, manifest("/sys/kernel"));
  await writeFile(good, manifest("./workspace"));
  await mkdir(join(place.data, "workspace"), { recursive: true });
  const refused = clawhiveIn(place, "agent", "validate", bad, "--agents", place.agents);
  assert.equal(refused.code, 1, refused.stdout + refused.stderr);
  assert.match(refused.stdout, new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: grants\\.fs\\.read\\.mounts\\[0\\]\\.host: refused: /sys/kernel lies inside /sys`, "m"));
  const passed = clawhiveIn(place, "agent", "validate", good, "--agents", place.agents);
  assert.equal(passed.code, 0, passed.stdout + passed.stderr);
});
