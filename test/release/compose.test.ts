/**
 * compose.yaml's wiring, without a container engine: the image's settings (Dockerfile, final
 * stage: ENV, WORKDIR, CMD) under each service's own (environment, command, ports, volumes,
 * depends_on) start the same processes here: the real sqld with the service's arguments, then
 * node-a and node-b as `clawhive serve` from this checkout, in depends_on order. What only a
 * container has is translated and nothing else: a listen address on every interface becomes
 * 127.0.0.1 on a free port, a service name in a URL the address its service listens on here, a
 * volume a temp folder, the image's prebuilt plugins this checkout's build cache. Requests carry
 * the Host a client of the published port sends (127.0.0.1:7401), so the allowed hosts are
 * tested too. A run submitted on node-a is then read, ended, on node-b.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { request } from "node:http";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { TEST_SECRET_KEY } from "../helpers/secret-key.js";
import { freePort, needsSqld, sqldBinary } from "../helpers/sqld.js";
import { tempDir } from "../helpers/runtime.js";
import { interpolate, readImage, type Image } from "./compose-files.js";

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  user?: string;
}

/** A node's first start installs seven plugins into an empty store; the bound only stops a hang. */
const START_BOUND_MS = 10 * 60_000;
const BIN = join(PROJECT_ROOT, "bin", "clawhive.js");

const compose = (env: Record<string, string | undefined>) =>
  interpolate(parse(readFileSync(join(PROJECT_ROOT, "compose.yaml"), "utf8"), { merge: true }), env) as { services: Record<string, Service>; volumes: Record<string, unknown> };

interface Started {
  child: ChildProcess;
  output: () => string;
}

const children: ChildProcess[] = [];

function start(file: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Started {
  const child = spawn(file, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let output = "";
  const seen = (text: string) => (output = (output + text).slice(-200_000));
  child.stdout?.setEncoding("utf8").on("data", seen);
  child.stderr?.setEncoding("utf8").on("data", seen);
  return { child, output: () => output };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolveStop();
    });
    child.kill("SIGTERM");
  });
}

interface Reply {
  status: number;
  body: unknown;
}

/** One request to 127.0.0.1:`port` naming `host` in its Host header, as a client of the published port does. */
function call(port: number, host: string, path: string, options: { method?: string; token?: string; body?: unknown } = {}): Promise<Reply> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolveReply, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: options.method ?? "GET",
        timeout: 60_000,
        headers: { host, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...(payload ? { "content-type": "application/json" } : {}) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (d: string) => (text += d));
        res.on("end", () => resolveReply({ status: res.statusCode ?? 0, body: text === "" ? undefined : JSON.parse(text) }));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${path}: no answer within 60 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, started?: Started): Promise<T> {
  const deadline = Date.now() + START_BOUND_MS;
  for (;;) {
    if (started !== undefined && (started.child.exitCode !== null || started.child.signalCode !== null)) throw new Error(`${what}: the process exited (${started.child.exitCode ?? started.child.signalCode}):\n${started.output().slice(-4000)}`);
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${START_BOUND_MS} ms\n${started?.output().slice(-4000) ?? ""}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 250));
  }
}

/** `host:port` of a listen address or URL authority. */
function hostPort(text: string): { host: string; port: number } {
  const match = /^(.*):(\d+)$/.exec(text);
  assert.ok(match, `expected host:port, got ${text}`);
  return { host: match[1]!, port: Number(match[2]) };
}

/** Services in the order depends_on starts them. */
function startOrder(services: Record<string, Service>): string[] {
  const order: string[] = [];
  const visit = (name: string, path: string[]) => {
    assert.ok(!path.includes(name), `depends_on cycle: ${[...path, name].join(" -> ")}`);
    if (order.includes(name)) return;
    for (const dep of Object.keys(services[name]?.depends_on ?? {})) visit(dep, [...path, name]);
    order.push(name);
  };
  for (const name of Object.keys(services)) visit(name, []);
  return order;
}

describe("compose.yaml: two nodes on one sqld, started from its settings", { ...needsSqld(), timeout: 2 * START_BOUND_MS }, () => {
  const image: Image = readImage(readFileSync(join(PROJECT_ROOT, "Dockerfile"), "utf8"));
  const secretKey = TEST_SECRET_KEY.toString("base64");
  const { services, volumes } = compose({ CLAWHIVE_SECRET_KEY: secretKey });
  /** Where each service listens here (container port -> local port). */
  const listening = new Map<string, { containerPort: number; port: number }>();
  const started = new Map<string, Started>();
  const volumeDirs = new Map<string, string>();
  let adminToken = "";
  /** What was started, in order, as the report shows it. */
  const launched: string[] = [];

  /** A named volume's folder here, and a container path under `target` translated into it. */
  async function translatePath(service: Service, containerPath: string): Promise<string> {
    for (const volume of service.volumes ?? []) {
      const [name, target] = volume.split(":") as [string, string];
      assert.ok(name in volumes, `${volume}: not a named volume of the file`);
      if (containerPath !== target && !containerPath.startsWith(`${target}/`)) continue;
      if (!volumeDirs.has(name)) volumeDirs.set(name, await tempDir(`clawhive-compose-${name}-`));
      const dir = join(volumeDirs.get(name)!, containerPath.slice(target.length));
      await mkdir(dir, { recursive: true });
      return dir;
    }
    throw new Error(`${containerPath} is on no volume of the service: its state would die with the container`);
  }

  /** A URL naming a service (http://sqld:8080) as the address that service listens on here. */
  function translateUrl(url: string): string {
    const parsed = new URL(url);
    const target = listening.get(parsed.hostname);
    assert.ok(target, `${url} names ${parsed.hostname}, which is no service listening`);
    assert.equal(Number(parsed.port), target.containerPort, `${url}: ${parsed.hostname} listens on ${target.containerPort}`);
    return `${parsed.protocol}//127.0.0.1:${target.port}`;
  }

  async function startSqldService(name: string, service: Service): Promise<void> {
    const found = sqldBinary();
    assert.ok("path" in found);
    const [program, ...args] = service.command ?? [];
    assert.equal(program, "sqld", `${name}: command`);
    const translated: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      translated.push(arg);
      if (arg === "--db-path") translated.push(await translatePath(service, args[++i]!));
      if (arg === "--http-listen-addr") {
        const { host, port: containerPort } = hostPort(args[++i]!);
        assert.equal(host, "0.0.0.0", `${name}: listens for the other containers`);
        const port = await freePort();
        listening.set(name, { containerPort, port });
        translated.push(`127.0.0.1:${port}`);
      }
    }
    assert.ok(listening.has(name), `${name}: no --http-listen-addr`);
    const cwd = await tempDir("clawhive-compose-sqld-cwd-");
    volumeDirs.set(`${name} (working folder)`, cwd);
    const proc = start(found.path, translated, { cwd, env: { PATH: process.env.PATH ?? "" } });
    launched.push(`${name}: sqld ${translated.join(" ")}`);
    started.set(name, proc);
    await until(`${name} /health`, async () => ((await fetch(`http://127.0.0.1:${listening.get(name)!.port}/health`)).ok ? true : undefined), proc);
  }

  async function startNode(name: string, service: Service): Promise<void> {
    assert.deepEqual(service.command ?? image.cmd, ["clawhive", "serve"], `${name}: command`);
    const settings: Record<string, string> = { ...image.env, ...service.environment };
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("CLAWHIVE_")) env[key] = value;
    const listen = hostPort(settings.CLAWHIVE_LISTEN ?? "");
    assert.equal(listen.host, "0.0.0.0", `${name}: a node listens on every interface of its container`);
    const published = (service.ports ?? []).map((p) => /^127\.0\.0\.1:(\d+):(\d+)$/.exec(p)).find((m) => m !== null && Number(m[2]) === listen.port);
    assert.ok(published, `${name}: no port published on the host's loopback for ${listen.port}: ${service.ports?.join(", ")}`);
    const port = await freePort();
    listening.set(name, { containerPort: listen.port, port });
    for (const [key, value] of Object.entries(settings)) {
      if (key === "PATH") continue;
      if (key === "CLAWHIVE_LISTEN") env[key] = `127.0.0.1:${port}`;
      else if (key === "CLAWHIVE_STORE_URL") env[key] = translateUrl(value);
      else if (key === "CLAWHIVE_BUILD_CACHE") env[key] = defaultBuildCacheDir();
      else if (key === "CLAWHIVE_DATA_DIR") env[key] = await translatePath(service, value);
      else env[key] = value;
    }
    const proc = start(process.execPath, [BIN, "serve"], { cwd: await translatePath(service, image.workdir), env });
    started.set(name, proc);
    const host = `127.0.0.1:${published[1]}`;
    // depends_on's service_healthy: the image's healthcheck asks /health. Once the node answers
    // at all, its answer is final: a 421 means the Host the published port carries is refused.
    const health = await until(`${name} /health`, async () => call(port, host, "/health"), proc);
    assert.equal(health.status, 200, `${name} /health with Host ${host}: ${JSON.stringify(health.body)}`);
    launched.push(`${name}: ${Object.entries(env).filter(([key]) => key.startsWith("CLAWHIVE_") && key !== "CLAWHIVE_SECRET_KEY").map(([key, value]) => `${key}=${value}`).join(" ")} clawhive serve`);
  }

  before(async () => {
    for (const name of startOrder(services)) {
      const service = services[name]!;
      if ((service.command ?? image.cmd)[0] === "sqld") await startSqldService(name, service);
      else await startNode(name, service);
    }
    adminToken = /^(chv_\S+)$/m.exec(started.get("node-a")?.output() ?? "")?.[1] ?? "";
  });

  after(async () => {
    for (const child of [...children].reverse()) await stop(child);
    for (const dir of volumeDirs.values()) await rm(dir, { recursive: true, force: true });
  });

  it("runs sqld, then node-a, then node-b, each node with its own volume and the same store and key", (t) => {
    for (const line of launched) t.diagnostic(line);
    assert.deepEqual(startOrder(services), ["sqld", "node-a", "node-b"]);
    const a = { ...image.env, ...services["node-a"]!.environment };
    const b = { ...image.env, ...services["node-b"]!.environment };
    assert.equal(a.CLAWHIVE_STORE_URL, b.CLAWHIVE_STORE_URL);
    assert.equal(a.CLAWHIVE_SECRET_KEY, secretKey);
    assert.equal(b.CLAWHIVE_SECRET_KEY, secretKey);
    assert.notDeepEqual(services["node-a"]!.volumes, services["node-b"]!.volumes);
    assert.notDeepEqual(services["node-a"]!.ports, services["node-b"]!.ports);
    assert.ok(existsSync(join(volumeDirs.get("node-a")!, "clawhive.db")) === false, "node-a kept its store in a file instead of on sqld");
  });

  it("node-a made the one admin token; node-b, starting on the same store, made none", () => {
    assert.match(adminToken, /^chv_tok_/, started.get("node-a")!.output().slice(-2000));
    assert.doesNotMatch(started.get("node-b")!.output(), /chv_tok_/);
  });

  it("a run created on node-a is seen on node-b, ended", async () => {
    const a = listening.get("node-a")!.port;
    const b = listening.get("node-b")!.port;
    const created = await call(a, "127.0.0.1:7401", "/v1/runs", { method: "POST", token: adminToken, body: { agent: "default", tool_calls: [{ name: "files.list_dir", input: { path: "/workspace" } }] } });
    assert.ok(created.status === 200 || created.status === 201 || created.status === 202, JSON.stringify(created.body));
    const id = (created.body as { run: { id: string } }).run.id;
    const seen = await until("the run ended on node-b", async () => {
      const reply = await call(b, "localhost:7402", `/v1/runs/${id}`, { token: adminToken });
      const run = (reply.body as { run?: { status: string; outcomes: Array<{ tool: string; status: string; output: unknown }> } }).run;
      return run?.status === "ended" ? run : undefined;
    });
    assert.equal(seen.outcomes[0]?.tool, "files.list_dir");
    assert.equal(seen.outcomes[0]?.status, "ok", JSON.stringify(seen.outcomes[0]));
    assert.equal((seen.outcomes[0]?.output as { path: string }).path, "/workspace");
  });

  it("a Host the file does not allow is refused (421), beside the published names that pass", async () => {
    const b = listening.get("node-b")!.port;
    for (const host of ["127.0.0.1:7402", "localhost:7402"]) assert.equal((await call(b, host, "/health")).status, 200, host);
    for (const host of ["evil.example:7402", "clawhive.internal"]) {
      const reply = await call(b, host, "/health");
      assert.equal(reply.status, 421, host);
      assert.equal((reply.body as { error: { code: string } }).error.code, "host_not_allowed");
    }
  });

  it("the file refuses to start without a secret key, naming it", () => {
    assert.throws(() => compose({}), /required variable CLAWHIVE_SECRET_KEY is missing a value: set CLAWHIVE_SECRET_KEY \(base64 of 32 random bytes\) in \.env/);
    assert.doesNotThrow(() => compose({ CLAWHIVE_SECRET_KEY: secretKey }), "control");
  });
});
