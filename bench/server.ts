/**
 * A `clawhive serve` child process as a user runs it (`npm start`'s flags), the same process's
 * reference (a bare Hono server on the same kind of port), and one HTTP client for both: a
 * keep-alive agent in the bench process, so the two differ only in what the server does.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { Agent, request } from "node:http";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../runtime/plugins/locations.js";

const CLI = join(PROJECT_ROOT, "bin", "clawhive.js");
const BARE = join(PROJECT_ROOT, "dist", "bench", "bare-server.js");

export interface BenchServer {
  url: string;
  pid: number;
  dataDir: string;
  token: (role: "admin" | "client") => string;
  rssMb: () => Promise<number>;
  close: () => Promise<void>;
}

/** A served data dir with a client and an admin token, and a work folder with one file to read. */
/** `nodeArgs` go before the CLI's (e.g. `--cpu-prof`, `--heapsnapshot-signal=SIGUSR2` to profile the server). */
export async function startServer(options: { env?: Record<string, string>; nodeArgs?: string[] } = {}): Promise<BenchServer> {
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-bench-serve-"));
  await mkdir(join(dataDir, "work"));
  await mkdir(join(dataDir, "agents")); // no file agents: the figures are about stored ones
  await writeFile(join(dataDir, "work", "note.txt"), "a small file a tool reads\n");
  const tokens = { admin: createToken(dataDir, "admin"), client: createToken(dataDir, "client") };
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), "--max-semi-space-size=2", CLI, "serve", "--data-dir", dataDir, "--port", "0", "--agents", join(dataDir, "agents")], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CLAWHIVE_CONFIG: "", ...options.env },
  });
  const url = await listening(child, /listening on (http:\/\/\S+)/);
  return {
    url,
    pid: child.pid!,
    dataDir,
    token: (role) => tokens[role],
    rssMb: () => rssMb(child.pid!),
    close: async () => {
      await stop(child);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The reference: Hono on @hono/node-server answering a JSON POST, in its own process. */
export async function startBareServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const child = spawn(process.execPath, [BARE], { stdio: ["ignore", "pipe", "pipe"] });
  const url = await listening(child, /listening on (http:\/\/\S+)/);
  return { url, close: () => stop(child) };
}

function createToken(dataDir: string, role: string): string {
  const result = spawnSync(process.execPath, [CLI, "token", "create", "--role", role, "--name", `bench-${role}`, "--data-dir", dataDir], { encoding: "utf8", env: { ...process.env, CLAWHIVE_CONFIG: "" } });
  if (result.status !== 0) throw new Error(`token create failed: ${result.stderr}`);
  return result.stdout.trim();
}

function listening(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const match = pattern.exec(out);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${err}`)));
    setTimeout(() => reject(new Error(`server did not start in 600 s: ${err}`)), 600_000).unref();
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/**
 * One request; resolves with the status and the body text. A kept-alive socket the server
 * closed while idle fails before any answer: that request is sent again, once (as Node's docs
 * advise), on a fresh socket.
 */
export async function send(url: string, options: { method: string; token?: string; body?: string }): Promise<{ status: number; text: string }> {
  try {
    return await sendOnce(url, options);
  } catch (error) {
    if ((error as { reusedSocket?: boolean }).reusedSocket && (error as { code?: string }).code === "ECONNRESET") return sendOnce(url, options);
    throw error;
  }
}

function sendOnce(url: string, options: { method: string; token?: string; body?: string }): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers["content-length"] = String(Buffer.byteLength(options.body));
    const req = request(url, { method: options.method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on("error", reject);
    });
    req.on("error", (error) => reject(Object.assign(error, { reusedSocket: req.reusedSocket })));
    req.end(options.body);
  });
}

/** `concurrency` clients sending back to back for `durationMs`: completions per second and latencies (ms). */
export async function load(durationMs: number, concurrency: number, one: () => Promise<void>): Promise<{ perSecond: number; latencies: number[] }> {
  const latencies: number[] = [];
  const started = performance.now();
  const until = started + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        await one();
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { perSecond: latencies.length / ((performance.now() - started) / 1000), latencies };
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
