/** `clawhive plugin upgrades | accept | reject` through the real binary: a refused widening upgrade decided later. */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, test } from "node:test";
import { echoComponent, writePackage } from "../helpers/plugin-packages.js";
import { cliPlace, clawhiveIn, type CliPlace } from "./fixtures.js";

let place: CliPlace;
let echo: Awaited<ReturnType<typeof echoComponent>>;

before(async () => {
  place = await cliPlace("clawhive-cli-upgrades-");
  echo = await echoComponent();
});

after(async () => {
  await rm(place.root, { recursive: true, force: true });
});

test("a widening upgrade refused without --accept is listed by 'plugin upgrades', then accepted or rejected by name", async () => {
  const v1 = await writePackage(place.root, "v1", echo.manifest, echo.bytes);
  assert.equal(clawhiveIn(place, "plugin", "install", v1).code, 0);
  const v2 = await writePackage(place.root, "v2", { ...echo.manifest, version: "0.2.0", capabilities: ["fs.read", "kv", "log"] }, echo.bytes);
  const refused = clawhiveIn(place, "plugin", "upgrade", "bench-echo", v2);
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /or later: 'clawhive plugin accept bench-echo'/);

  const listed = clawhiveIn(place, "plugin", "upgrades");
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^bench-echo 0\.1\.0 → 0\.2\.0 {2}proposed by cli:\S+ at \S+, kept until \S+\n {2}\+ capability log\n/);
  const json = JSON.parse(clawhiveIn(place, "plugin", "upgrades", "--json").stdout) as Array<{ name: string; diff: { lines: string[] } }>;
  assert.deepEqual(json.map((u) => [u.name, u.diff.lines]), [["bench-echo", ["+ capability log"]]]);

  const accepted = clawhiveIn(place, "plugin", "accept", "Bench-Echo");
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.match(accepted.stdout, /upgraded bench-echo@0\.2\.0 .*\n {2}\+ capability log\n/);
  assert.match(clawhiveIn(place, "plugin", "upgrades").stdout, /^no pending upgrades\n$/);

  const v3 = await writePackage(place.root, "v3", { ...echo.manifest, version: "0.3.0", capabilities: ["fs.read", "kv", "log", "http"] }, echo.bytes);
  assert.equal(clawhiveIn(place, "plugin", "upgrade", "bench-echo", v3).code, 3);
  const rejected = clawhiveIn(place, "plugin", "reject", "bench-echo");
  assert.equal(rejected.code, 0, rejected.stderr);
  assert.match(rejected.stdout, /rejected the pending upgrade of bench-echo to 0\.3\.0; bench-echo@0\.2\.0 stays installed/);
  const none = clawhiveIn(place, "plugin", "accept", "bench-echo");
  assert.equal(none.code, 2, none.stderr);
  assert.match(none.stderr, /no pending upgrade of plugin bench-echo/);
});

test("bad usage of the pending-upgrade commands: a message and exit 2", () => {
  for (const [args, pattern] of [
    [["plugin", "accept"], /usage: clawhive plugin accept NAME/],
    [["plugin", "reject", "a", "b"], /usage: clawhive plugin reject NAME/],
    [["plugin", "upgrades", "extra"], /usage: clawhive plugin upgrades/],
    [["plugin", "accept", "Bad_Name!"], /name/],
  ] as const) {
    const answer = clawhiveIn(place, ...args);
    assert.equal(answer.code, 2, `${args.join(" ")}: ${answer.stderr}`);
    assert.match(answer.stderr, pattern, args.join(" "));
  }
});
