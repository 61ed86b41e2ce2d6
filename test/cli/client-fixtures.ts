import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { rm } from "node:fs/promises";
import { BIN, cliPlace, type CliPlace } from "./fixtures.js";

export interface Result {
  code: number | null;
  signal?: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A real `clawhive serve` on `place`: its URL and the admin token it printed on first start. */
export interface Served {
  url: string;
  token: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

const CLAWHIVE_VARS = ["CLAWHIVE_DATA_DIR", "CLAWHIVE_STORE_URL", "CLAWHIVE_STORE_AUTH_TOKEN", "CLAWHIVE_AGENTS_DIR", "CLAWHIVE_SERVER", "CLAWHIVE_TOKEN", "CLAWHIVE_TOKEN_FILE"];

/** This process's environment without any clawhive variable, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of CLAWHIVE_VARS) delete env[name];
  return { ...env, ...extra };
}

/** Starts `clawhive serve --data-dir D --agents A --port 0` (`env` added) and reads its token and address from stdout. */
export async function serve(place: CliPlace, options: { env?: Record<string, string> } = {}): Promise<Served> {
  const child = spawn(process.execPath, [BIN, "serve", "--data-dir", place.data, "--agents", place.agents, "--port", "0"], { env: cleanEnv(options.env), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in 120 s:\n${stderr}`)), 120_000);
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d.toString();
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      const token = /^(chv_\S+)$/m.exec(stdout)?.[1];
      if (url && token) {
        clearTimeout(timer);
        resolve({ url, token });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before listening:\n${stderr}`));
    });
  });
  return {
    url,
    token,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** How a command is pointed at its state: the store of `place`, or `server`'s API. */
export type Mode = { kind: "direct"; place: CliPlace } | { kind: "server"; server: Served; token?: string };

function envOf(mode: Mode, extra: Record<string, string>): NodeJS.ProcessEnv {
  return mode.kind === "direct"
    ? cleanEnv({ CLAWHIVE_DATA_DIR: mode.place.data, CLAWHIVE_AGENTS_DIR: mode.place.agents, ...extra })
    : cleanEnv({ CLAWHIVE_SERVER: mode.server.url, CLAWHIVE_TOKEN: mode.token ?? mode.server.token, ...extra });
}

/** Runs the real binary to its end. */
export function cli(mode: Mode, args: readonly string[], options: { env?: Record<string, string>; input?: string } = {}): Result {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 300_000, env: envOf(mode, options.env ?? {}), ...(options.input === undefined ? {} : { input: options.input }) });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

/** Starts the real binary; `output` grows as it writes; `done` is its end. */
export function start(mode: Mode, args: readonly string[]): { child: ChildProcess; output: () => Result; done: Promise<Result>; waitFor(pattern: RegExp): Promise<void> } {
  const child = spawn(process.execPath, [BIN, ...args], { env: envOf(mode, {}), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Result>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return {
    child,
    output: () => ({ code: child.exitCode, stdout, stderr }),
    done,
    waitFor: async (pattern) => {
      const deadline = Date.now() + 120_000;
      while (!pattern.test(stdout + stderr)) {
        if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}) before ${pattern}:\n${stdout}\n${stderr}`);
        if (Date.now() > deadline) throw new Error(`no ${pattern} in 120 s:\n${stdout}\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/** A place and a server on its store: the same command run both ways. */
export interface BothModes {
  place: CliPlace;
  server: Served;
  direct: Mode;
  remote: Mode;
  close(): Promise<void>;
}

/** A place (`prepare` fills it before the server starts) and a server on it; `close` stops and removes both. */
export async function bothModes(prefix: string, prepare?: (place: CliPlace) => Promise<void>): Promise<BothModes> {
  const place = await cliPlace(prefix);
  await prepare?.(place);
  const server = await serve(place);
  const close = async () => {
    await server.stop();
    await rm(place.root, { recursive: true, force: true });
  };
  return { place, server, direct: { kind: "direct", place }, remote: { kind: "server", server }, close };
}
