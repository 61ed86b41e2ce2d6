/**
 * A large tool result through the shipped command: `clawhive call` prints a 3 MiB output whole
 * (and `--json` carries it), one past the result cap is the tool's error naming its size and the
 * cap (exit 1), and the runs that hold them still list and show.
 */
import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { PROBE_PLUGIN } from "../helpers/runtime.js";
import { spawnSync } from "node:child_process";
import { BIN, cliPlace, clawhiveIn, type CliPlace } from "./fixtures.js";

const MiB = 1 << 20;
let place: CliPlace;

before(async () => {
  place = await cliPlace("clawhive-cli-large-");
  await writeFile(join(place.agents, "prober.yaml"), "name: prober\ndescription: Calls the probe plugin.\nmodel: { provider: anthropic, id: none }\nsystem_prompt: Not used.\nplugins:\n  - { name: probe, version: \"*\" }\ngrants:\n  log: {}\n");
  const installed = clawhiveIn(place, "plugin", "install", PROBE_PLUGIN);
  assert.equal(installed.code, 0, installed.stderr);
});
after(async () => rm(place.root, { recursive: true, force: true }));

/** `clawhive call` with room for megabytes of output (spawnSync keeps 1 MiB by default). */
function call(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const env = { ...process.env };
  for (const name of ["CLAWHIVE_DATA_DIR", "CLAWHIVE_STORE_URL", "CLAWHIVE_AGENTS_DIR", "CLAWHIVE_SERVER"]) delete env[name];
  const argv = [BIN, "call", ...args, "--agent", "prober", "--agents", place.agents, "--data-dir", place.data];
  const result = spawnSync(process.execPath, argv, { encoding: "utf8", env, maxBuffer: 64 * MiB, timeout: 300_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test("clawhive call prints a 3 MiB result whole, and --json carries it", () => {
  const plain = call("probe.big", JSON.stringify({ bytes: 3 * MiB }));
  assert.equal(plain.code, 0, plain.stderr.slice(0, 2000));
  assert.equal(plain.stdout, `${"x".repeat(3 * MiB)}\n`);
  const json = call("probe.big", JSON.stringify({ bytes: 2 * MiB }), "--json");
  assert.equal(json.code, 0, json.stderr.slice(0, 2000));
  assert.equal((JSON.parse(json.stdout) as { output: string }).output.length, 2 * MiB);
});

test("a result past the cap is the tool's error, naming its size and the cap (exit 1); the runs still list and show", () => {
  const over = call("probe.big", JSON.stringify({ bytes: 4 * MiB + 1 }));
  assert.equal(over.code, 1);
  assert.match(over.stderr, /probe\.big: result-too-large: the tool returned 4194305 bytes, more than the 4194304-byte result cap \(sandbox\.max_result_bytes\)/);
  const listed = clawhiveIn(place, "runs", "list", "--json", "--limit", "10");
  assert.equal(listed.code, 0, listed.stderr);
  const runs = JSON.parse(listed.stdout) as Array<{ id: string; outcomes: Array<{ output_bytes?: number }> }>;
  const large = runs.find((r) => r.outcomes[0]?.output_bytes === 3 * MiB + 2);
  assert.ok(large, "the 3 MiB run is listed with its output's size");
  const shown = spawnSync(process.execPath, [BIN, "runs", "show", large.id, "--json", "--data-dir", place.data], { encoding: "utf8", maxBuffer: 64 * MiB });
  assert.equal(shown.status, 0, shown.stderr);
  assert.equal((JSON.parse(shown.stdout) as { outcomes: Array<{ output: string }> }).outcomes[0]!.output.length, 3 * MiB);
});
