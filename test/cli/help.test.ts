import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";

const BIN = join(PROJECT_ROOT, "bin", "clawhive.js");

function clawhive(...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The same, not waiting on each: the commands are many and each starts a process. */
async function clawhiveAsync(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === "number" ? failed.code : -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** The commands the top help lists (its `Commands:` block), so a command added later is covered too. */
function listedCommands(): string[] {
  const { stdout } = clawhive("--help");
  const block = stdout.split("Commands:\n")[1]!.split("\n\n")[0]!;
  return block.split("\n").map((line) => line.trim().split(/\s+/)[0]!).filter((name) => name !== "");
}

test("help CMD prints that command's help, for every command the top help lists", async () => {
  const top = clawhive("help");
  assert.equal(top.code, 0);
  assert.match(top.stdout, /^clawhive \S+ — /, "control: help alone is the list of commands");
  const commands = listedCommands();
  assert.ok(commands.length >= 20, `the command list was read: ${commands.join(", ")}`);
  const helps = await Promise.all(commands.map((command) => clawhiveAsync("help", command)));
  for (const [i, command] of commands.entries()) {
    const { code, stdout, stderr } = helps[i]!;
    assert.equal(code, 0, `help ${command}: ${stderr}`);
    assert.match(stdout, new RegExp(`^clawhive ${command} — `), `help ${command} prints its own help`);
    assert.notEqual(stdout, top.stdout, `help ${command} is not the list of commands`);
  }
});

test("help CMD SUB prints the subcommand's own help where it has one; help of an unknown command is refused", () => {
  for (const sub of ["new", "build"]) {
    const { code, stdout } = clawhive("help", "plugin", sub);
    assert.equal(code, 0);
    assert.match(stdout, new RegExp(`^clawhive plugin ${sub} — `));
    assert.equal(stdout, clawhive("plugin", sub, "--help").stdout, "the same text as --help");
  }
  // A subcommand without help of its own shows its command's.
  assert.match(clawhive("help", "runs", "show").stdout, /^clawhive runs — /);
  const unknown = clawhive("help", "cal");
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command 'cal'.*call/);
  assert.equal(unknown.stdout, "", "nothing on stdout: not the top help as if it had worked");
});
