import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { COMPLETIONS } from "../../runtime/cli/completion.js";
import { BIN } from "./fixtures.js";

function clawhive(...args: string[]): string {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

test("completion knows every command of the CLI's own help", () => {
  const listed = [...clawhive("--help").matchAll(/^ {2}([a-z]+) +\S/gm)].map((m) => m[1]!);
  assert.ok(listed.length > 10);
  assert.deepEqual([...listed].sort(), Object.keys(COMPLETIONS).sort());
});

test("bash completion completes commands, subcommands and agent names", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "clawhive-completion-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, "script.bash"), clawhive("completion", "bash"));
  await writeFile(join(dir, "writer.yaml"), "name: writer\n");
  const complete = (...words: string[]) => {
    const script = `source ${join(dir, "script.bash")}; COMP_WORDS=(clawhive ${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length}; _clawhive; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = spawnSync("bash", ["-c", script], { encoding: "utf8", env: { ...process.env, CLAWHIVE_AGENTS_DIR: dir } });
    assert.equal(result.status, 0, result.stderr);
    return result.stdout.trim().split("\n").filter(Boolean);
  };
  assert.deepEqual(complete("appr"), ["approvals"]);
  assert.deepEqual(complete("runs", "w"), ["watch"]);
  assert.deepEqual(complete("run", "wr"), ["writer"]);
  assert.deepEqual(complete("zzz"), []);
});

test("zsh and fish scripts name every command; an unknown shell is bad usage", () => {
  for (const shell of ["zsh", "fish"]) {
    const script = clawhive("completion", shell);
    for (const name of Object.keys(COMPLETIONS)) assert.ok(script.includes(name), `${shell}: ${name}`);
  }
  const bad = spawnSync(process.execPath, [BIN, "completion", "tcsh"], { encoding: "utf8" });
  assert.equal(bad.status, 2);
});
