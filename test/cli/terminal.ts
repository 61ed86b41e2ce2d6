/** A command run as a person at a terminal would run it: in a pseudo-terminal, typing answers. */
import { spawn, spawnSync } from "node:child_process";
import { cleanEnv, type Mode, type Result } from "./client-fixtures.js";
import { BIN } from "./fixtures.js";

/** util-linux `script` gives the command a pseudo-terminal: stdin and stderr are a TTY, as for a person. */
export const HAS_SCRIPT = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;

/**
 * Runs the real binary in a pseudo-terminal and types `answers`, each once `prompt` has appeared
 * one more time: what a person at the terminal does.
 */
export function inTerminal(mode: Mode, args: readonly string[], answers: readonly string[]): Promise<Result> {
  const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, BIN, ...args].map(quote).join(" ");
  const env = mode.kind === "direct"
    ? cleanEnv({ CLAWHIVE_DATA_DIR: mode.place.data, CLAWHIVE_AGENTS_DIR: mode.place.agents })
    : cleanEnv({ CLAWHIVE_SERVER: mode.server.url, CLAWHIVE_TOKEN: mode.server.token });
  const child = spawn("script", ["-qfec", command, "/dev/null"], { env, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let typed = 0;
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    const prompts = out.split("[o/r/d]? ").length - 1;
    if (prompts > typed && typed < answers.length) child.stdin.write(`${answers[typed++]}\n`);
  });
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout: out, stderr: "" })));
}
