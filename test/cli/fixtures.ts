import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { writeTestSecretKey } from "../helpers/secret-key.js";

export const BIN = join(PROJECT_ROOT, "bin", "clawhive.js");

/** An agent that may read and write `/workspace` (`<data dir>/workspace`, made by the runtime). */
export const WRITER = `name: writer
description: Writes files in its workspace.
model: { provider: anthropic, id: none }
system_prompt: Not used; tools are called directly.
plugins:
  - { name: files, version: "*" }
grants:
  fs.read:
    mounts: [{ guest: /workspace, host: ./workspace }]
  fs.write:
    mounts: [{ guest: /workspace, host: ./workspace }]
  log: {}
`;

export interface CliPlace {
  root: string;
  data: string;
  agents: string;
}

/** A temp root holding a data dir and an agents dir with the `writer` agent. */
export async function cliPlace(prefix: string): Promise<CliPlace> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const agents = join(root, "agents");
  await mkdir(agents);
  await writeFile(join(agents, "writer.yaml"), WRITER);
  // The suite's one secret key: the compiled plugin builds it sealed are trusted here too.
  await writeTestSecretKey(join(root, "data"));
  return { root, data: join(root, "data"), agents };
}

/** Runs the real binary on `place`'s data dir with no clawhive variables from this process. */
export function clawhiveIn(place: CliPlace, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const clean = { ...process.env };
  for (const name of ["CLAWHIVE_DATA_DIR", "CLAWHIVE_STORE_URL", "CLAWHIVE_STORE_AUTH_TOKEN", "CLAWHIVE_AGENTS_DIR"]) delete clean[name];
  const result = spawnSync(process.execPath, [BIN, ...args, "--data-dir", place.data], { encoding: "utf8", timeout: 300_000, env: clean });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The real binary on `place`'s data dir, asynchronously: for tests whose fake model server
 * answers from this process (spawnSync would block it). No clawhive variables pass through.
 */
export function clawhiveAsync(place: CliPlace, args: readonly string[], input?: string, options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  for (const name of ["CLAWHIVE_DATA_DIR", "CLAWHIVE_STORE_URL", "CLAWHIVE_AGENTS_DIR", "CLAWHIVE_SERVER", "CLAWHIVE_TOKEN"]) delete env[name];
  Object.assign(env, options.env);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args, "--data-dir", place.data], { env, stdio: ["pipe", "pipe", "pipe"], ...(options.cwd === undefined ? {} : { cwd: options.cwd }) });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(input ?? "");
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts a run that pauses on a Guarded write; returns its run and approval ids. */
export function pendingWrite(place: CliPlace, input: unknown): { run: string; approval: string } {
  const { code, stderr } = clawhiveIn(place, "call", "files.write_file", JSON.stringify(input), "--agent", "writer", "--agents", place.agents);
  assert.equal(code, 3, stderr);
  const approval = /waiting for approval (apr_\S+)/.exec(stderr)?.[1];
  const run = /run (run_\S+):/.exec(stderr)?.[1];
  assert.ok(approval && run, stderr);
  return { run, approval };
}
