import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { echoComponent, packTgz, writePackage } from "../helpers/plugin-packages.js";
import { cliPlace, clawhiveIn, type CliPlace } from "./fixtures.js";

let place: CliPlace;
let echo: Awaited<ReturnType<typeof echoComponent>>;

before(async () => {
  place = await cliPlace("clawhive-cli-plugin-");
  echo = await echoComponent();
});

after(async () => {
  await rm(place.root, { recursive: true, force: true });
});

test("plugin install, list, info, upgrade and remove through the real binary", async () => {
  const v1 = await writePackage(place.root, "v1", { ...echo.manifest, sha256: echo.sha256 }, echo.bytes);
  const tgz = await packTgz(v1, join(place.root, "echo-0.1.0.tgz"));

  const installed = clawhiveIn(place, "plugin", "install", tgz);
  assert.equal(installed.code, 0, installed.stderr);
  assert.match(installed.stdout, new RegExp(`installed bench-echo@0\\.1\\.0 \\(component, 11\\.\\d MiB, sha256 ${echo.sha256}\\)`));
  assert.match(installed.stdout, /tools: bench-echo\.echo \(safe\), bench-echo\.hostloop \(safe\), bench-echo\.kvloop \(safe\)/);

  const again = clawhiveIn(place, "plugin", "install", tgz);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /already installed with these exact bytes/);

  const listed = clawhiveIn(place, "plugin", "list", "--json");
  assert.equal(listed.code, 0, listed.stderr);
  const plugins = JSON.parse(listed.stdout) as Array<{ name: string; sha256: string; size: number; publisher: string }>;
  assert.deepEqual(plugins.map((p) => [p.name, p.sha256, p.size, p.publisher]), [["bench-echo", echo.sha256, echo.bytes.byteLength, "clawhive-bench"]]);

  const info = clawhiveIn(place, "plugin", "info", "Bench-Echo");
  assert.equal(info.code, 0, info.stderr);
  for (const line of [/publisher\s+clawhive-bench/, new RegExp(`sha256\\s+${echo.sha256}`), /size\s+11\.\d MiB/, /capabilities\s+fs\.read/, /hostloop\s+safe\s+fs\.read/]) assert.match(info.stdout, line);

  // A widening upgrade: refused without --accept (exit 3), the diff on stderr, nothing changed.
  const v2 = await writePackage(place.root, "v2", { ...echo.manifest, version: "0.2.0", capabilities: ["fs.read", "kv", "log"] }, echo.bytes);
  const refused = clawhiveIn(place, "plugin", "upgrade", "bench-echo", v2);
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /widens what it may do:\n {2}\+ capability log\n/);
  assert.match(clawhiveIn(place, "plugin", "info", "bench-echo").stdout, /^bench-echo@0\.1\.0/);
  const accepted = clawhiveIn(place, "plugin", "upgrade", "bench-echo", v2, "--accept");
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.match(accepted.stdout, /upgraded bench-echo@0\.2\.0/);

  const clash = clawhiveIn(place, "plugin", "install", v1);
  assert.equal(clash.code, 2, clash.stderr);
  assert.match(clash.stderr, /already installed .*use 'clawhive plugin upgrade bench-echo <source>'/);

  const removed = clawhiveIn(place, "plugin", "remove", "bench-echo");
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(clawhiveIn(place, "plugin", "list").stdout, /no plugins installed/);
});

test("plugin commands answer bad input with a message and a non-zero exit", async () => {
  const table: Array<[string[], number, RegExp]> = [
    [["plugin"], 2, /usage: clawhive plugin install/],
    [["plugin", "frobnicate"], 2, /unknown plugin command 'frobnicate'/],
    [["plugin", "install"], 2, /usage: clawhive plugin install SOURCE/],
    [["plugin", "install", join(place.root, "nowhere")], 2, /no such file or folder/],
    [["plugin", "install", "https://example.invalid/x.tgz"], 2, /only with its sha256/],
    [["plugin", "install", "ftp://example.invalid/x.tgz", "--sha256", "0".repeat(64)], 2, /only https URLs/],
    [["plugin", "info", "nothing-here"], 2, /no plugin named nothing-here/],
    [["plugin", "remove", "nothing-here"], 2, /no plugin named nothing-here is installed/],
    [["plugin", "upgrade", "bench-echo"], 2, /usage: clawhive plugin upgrade NAME SOURCE/],
  ];
  for (const [args, code, message] of table) {
    const result = clawhiveIn(place, ...args);
    assert.equal(result.code, code, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message, args.join(" "));
  }
});

test("a lookalike name needs --allow-similar-name; every change is in 'audit tail --kind plugin' with who asked", async () => {
  const pkg = await writePackage(place.root, "look-1", echo.manifest, echo.bytes);
  assert.equal(clawhiveIn(place, "plugin", "install", pkg).code, 0);
  const lookalike = await writePackage(place.root, "look-2", { ...echo.manifest, name: "bench-ech0" }, echo.bytes);
  const refused = clawhiveIn(place, "plugin", "install", lookalike);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /plugin name bench-ech0 is confusable with the installed plugin bench-echo.*--allow-similar-name/s);
  // Control: the same package with the flag installs.
  const allowed = clawhiveIn(place, "plugin", "install", lookalike, "--allow-similar-name");
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stdout, /installed bench-ech0@0\.1\.0/);

  const tail = clawhiveIn(place, "audit", "tail", "--kind", "plugin", "--json", "--limit", "1000");
  assert.equal(tail.code, 0, tail.stderr);
  const records = JSON.parse(tail.stdout) as Array<{ kind: string; status: string; plugin: string; denial: { reason: string } | null; plugin_event: { by: string; sha256: string } }>;
  assert.ok(records.every((r) => r.kind === "plugin"));
  const similar = records.find((r) => r.status === "denied" && r.denial?.reason === "plugin_name_similar");
  assert.ok(similar, JSON.stringify(records));
  assert.equal(similar.plugin, "bench-ech0");
  assert.match(similar.plugin_event.by, /^cli:/);
  assert.equal(similar.plugin_event.sha256, echo.sha256);
  assert.ok(records.some((r) => r.status === "ok" && r.plugin === "bench-ech0"));
  // The earlier test's widening upgrade without --accept was refused, and recorded.
  assert.ok(records.some((r) => r.status === "denied" && r.denial?.reason === "upgrade_needs_acceptance"));
  const lines = clawhiveIn(place, "audit", "tail", "--kind", "plugin");
  assert.equal(lines.code, 0, lines.stderr);
  assert.match(lines.stdout, /plugin\.install: plugin_name_similar: .* bench-ech0@0\.1\.0 sha256 [0-9a-f]{12} publisher clawhive-bench by cli:/);
});
