/**
 * HTTP figures:
 * - http_tool_calls_per_s_in_process (was http_tool_calls_per_s): runs of 10 explicit tool calls each through POST /v1/runs?wait=true
 *   (real HTTP on 127.0.0.1, a client token, 8 clients at once), counting tool calls; every
 *   call is policy-checked, audited and its outcome stored with the run; the server and the
 *   client share the bench's process, and the agent is defined in code (http-runs.ts has the
 *   figures of runs as a user makes them);
 * - idle_rss_before_runs (was idle_rss): resident memory of `clawhive serve` (what `npm start` runs), idle after a start
 *   on a data dir whose first-party plugins are installed (every start but the first);
 * - idle_rss_before_runs_first_start (was idle_rss_first_start): the same on the first start, which installs (compiles and describes)
 *   every first-party plugin.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { API_SERVER_OPTIONS, createApp } from "../runtime/api/app.js";
import { openTokenStore } from "../runtime/api/auth/index.js";
import { Runtime } from "../runtime/index.js";
import { PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { sleep, value, type Metrics } from "./metrics.js";

const CALLS_PER_RUN = 10;
const CLIENTS = 8;

export async function benchHttp(options: { quick?: boolean } = {}): Promise<Metrics> {
  return {
    http_tool_calls_per_s_in_process: value(await toolCallsPerSecond(options.quick ? 1500 : 5000), "per_s"),
    ...(await idleRss()),
  };
}

async function toolCallsPerSecond(durationMs: number): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-bench-http-"));
  const runtime = await Runtime.create({ dataDir, agentsDir: join(dataDir), pluginDirs: [join(PROJECT_ROOT, "bench", "plugins", "echo")], sandbox: { poolSize: 2 } });
  let server: ServerType | undefined;
  try {
    await runtime.defineAgent({
      name: "bench",
      description: "bench agent",
      model: { provider: "anthropic", id: "none" },
      system_prompt: "none",
      plugins: [{ name: "bench-echo", version: "*" }],
      grants: {},
    });
    const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
    const token = (await tokens.create("client")).token;
    const app = createApp({ runtime, tokens, version: "bench", limits: { maxConcurrentRequests: 256 } });
    await new Promise<void>((resolve) => {
      server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0, serverOptions: { ...API_SERVER_OPTIONS } }, () => resolve());
    });
    const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1/runs?wait=true`;
    const body = JSON.stringify({ agent: "bench", tool_calls: Array.from({ length: CALLS_PER_RUN }, (_, i) => ({ name: "bench-echo.echo", input: { i } })) });
    const post = async () => {
      const response = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body });
      const result = (await response.json()) as { run?: { status: string; outcomes: Array<{ status: string }> } };
      if (response.status !== 201 || result.run?.status !== "ended" || result.run.outcomes.some((o) => o.status !== "ok")) {
        throw new Error(`bench run failed: ${response.status} ${JSON.stringify(result).slice(0, 300)}`);
      }
    };
    for (let i = 0; i < 20; i++) await post(); // warm up
    let runs = 0;
    const started = performance.now();
    const until = started + durationMs;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < until) {
          await post();
          runs++;
        }
      }),
    );
    return (runs * CALLS_PER_RUN) / ((performance.now() - started) / 1000);
  } finally {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await runtime.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function idleRss(): Promise<Metrics> {
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-bench-idle-"));
  try {
    const first = await serveRss(dataDir);
    const steady = await serveRss(dataDir);
    return { idle_rss_before_runs: value(steady, "MB"), idle_rss_before_runs_first_start: value(first, "MB") };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function serveRss(dataDir: string): Promise<number> {
  // As `npm start` runs it (see package.json: a 2 MB young generation keeps an idle server small).
  const child = spawn(process.execPath, ["--max-semi-space-size=2", join(PROJECT_ROOT, "bin", "clawhive.js"), "serve", "--data-dir", dataDir, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CLAWHIVE_CONFIG: "" } });
  try {
    await new Promise<void>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (/listening on/.test(out)) resolve();
      });
      child.on("exit", (code) => reject(new Error(`serve exited with ${code}`)));
      setTimeout(() => reject(new Error("serve did not start in 600 s")), 600_000).unref();
    });
    await sleep(3000); // idle: let start-up garbage be collected
    const status = await readFile(`/proc/${child.pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  }
}
