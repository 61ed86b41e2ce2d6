/**
 * A real OCI registry for tests: Debian's `docker-registry` (distribution 2.8) started on
 * 127.0.0.1 with a free port and a temp storage folder, stopped after (and on process exit).
 * Where the binary is missing the tests are skipped loudly; `CLAWHIVE_REQUIRE_REGISTRY=1` fails.
 *
 * `RegistryProxy` stands in front of it as a registry that misbehaves: it speaks the same HTTP
 * (it forwards every request) and changes what a test asks for: a manifest swapped, bytes
 * changed, a lying digest header, basic auth demanded, or no answer at all.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as netServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BINARY = process.env.CLAWHIVE_REGISTRY_BIN ?? "docker-registry";

export function needsRegistry(): { skip?: string } {
  const found = spawnSync(BINARY, ["--version"], { encoding: "utf8" });
  if (found.status === 0) return {};
  const missing = `no ${BINARY} binary (apt-get install docker-registry)`;
  if (process.env.CLAWHIVE_REQUIRE_REGISTRY === "1") throw new Error(`the registry is required here: ${missing}`);
  process.stderr.write(`\n!!! SKIPPING the OCI registry tests: ${missing} !!!\n\n`);
  return { skip: missing };
}

export interface TestRegistry {
  /** host:port */
  host: string;
  /** The storage folder (docker/registry/v2/…): a test may change a blob's bytes there. */
  storage: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = netServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startRegistry(): Promise<TestRegistry> {
  const dir = await mkdtemp(join(tmpdir(), "clawhive-registry-"));
  const storage = join(dir, "data");
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const config = join(dir, "config.yml");
    await writeFile(config, `version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: ${storage}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:${port}\n`);
    const child = spawn(BINARY, ["serve", config], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    const kill = () => child.kill("SIGKILL");
    process.once("exit", kill);
    const host = `127.0.0.1:${port}`;
    if (await ready(host, child)) {
      return {
        host,
        storage,
        stop: async () => {
          process.removeListener("exit", kill);
          await stopChild(child);
          await rm(dir, { recursive: true, force: true });
        },
      };
    }
    process.removeListener("exit", kill);
    await stopChild(child);
    if (attempt >= 2) throw new Error(`docker-registry did not start: ${stderr}`);
  }
}

async function ready(host: string, child: ChildProcess): Promise<boolean> {
  for (let i = 0; i < 200 && child.exitCode === null; i++) {
    try {
      const response = await fetch(`http://${host}/v2/`);
      if (response.status === 200) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** What the proxy sends back; a rewrite may change any part, or `hang` to send nothing. */
export interface ProxiedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type Rewrite = (request: { method: string; path: string; headers: IncomingMessage["headers"] }, response: ProxiedResponse) => ProxiedResponse | "hang" | Promise<ProxiedResponse | "hang">;

export class RegistryProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #upstream: string;
  rewrite: Rewrite | undefined;
  /** When set, every request must carry these basic credentials (`user:password`), else 401 with a Basic challenge. */
  basic: string | undefined;
  /** Requests seen, `METHOD path`. */
  readonly seen: string[] = [];
  host = "";

  private constructor(upstream: string) {
    this.#upstream = upstream;
    this.#server = createServer((req, res) => void this.#handle(req, res));
    this.#server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  static async start(upstream: string): Promise<RegistryProxy> {
    const proxy = new RegistryProxy(upstream);
    await new Promise<void>((resolve) => proxy.#server.listen(0, "127.0.0.1", resolve));
    proxy.host = `127.0.0.1:${(proxy.#server.address() as { port: number }).port}`;
    return proxy;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? "/";
    this.seen.push(`${req.method} ${path}`);
    if (this.basic !== undefined && req.headers.authorization !== `Basic ${Buffer.from(this.basic).toString("base64")}`) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="test registry"', "content-type": "application/json" });
      res.end(JSON.stringify({ errors: [{ code: "UNAUTHORIZED", message: "authentication required" }] }));
      return;
    }
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string" && key !== "host" && key !== "authorization" && key !== "connection") headers[key] = value;
    const upstream = await fetch(`http://${this.#upstream}${path}`, { method: req.method ?? "GET", headers, redirect: "manual", ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}) });
    const out: ProxiedResponse = { status: upstream.status, headers: {}, body: Buffer.from(await upstream.arrayBuffer()) };
    upstream.headers.forEach((value, key) => {
      if (key !== "content-length" && key !== "transfer-encoding" && key !== "connection" && key !== "content-encoding") out.headers[key] = key === "location" ? value.replace(this.#upstream, this.host) : value;
    });
    const answer = this.rewrite === undefined ? out : await this.rewrite({ method: req.method ?? "GET", path, headers: req.headers }, out);
    if (answer === "hang") return;
    res.writeHead(answer.status, { ...answer.headers, "content-length": String(answer.body.length) });
    res.end(req.method === "HEAD" ? undefined : answer.body);
  }

  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
