/**
 * Runs over HTTP as a user makes them (group `http`): `clawhive serve` in its own process, a
 * client token, a stored agent (PUT /v1/agents) granted one mount, policy and audit on, and one
 * Safe `files.read_file` per `POST /v1/runs?wait=true`. Each concurrency is measured beside the
 * reference in the same minute: a bare Hono server on the same kind of port, same client.
 * - http_runs_per_s_cN / http_bare_req_per_s_cN: completions per second at concurrency N;
 * - http_run_ratio_cN: the two divided; http_run_ratio: the same at c = 32 (goal ≥ 0.10);
 * - http_run_p99_c32: the run's latency at the 99th percentile at c = 32 (goal ≤ 50 ms);
 * - http_runs_per_s_c32_8_agents / http_run_ratio_c32_8_agents: the same at c = 32 with the runs
 *   spread over 8 agents (what the per-agent fair share of the workers costs one agent);
 * - run_cost_agents_ratio: a one-call run's mean latency at c = 1 with 100 stored agents ÷ with 1
 *   (goal ≤ 1.1): the per-run cost of agents the run does not use.
 */
import { value, type Metrics } from "./metrics.js";
import { load, percentile, send, startBareServer, startServer, type BenchServer } from "./server.js";

const CONCURRENCY = [1, 8, 32, 64];

export async function benchHttpRuns(options: { quick?: boolean } = {}): Promise<Metrics> {
  const seconds = options.quick ? 1 : 3;
  const metrics: Metrics = {};
  const server = await startServer();
  const bare = await startBareServer();
  try {
    await putAgent(server, "bench");
    const run = oneCallRun(server, "bench");
    const reference = bareRequest(bare.url);
    for (let i = 0; i < 50; i++) await run(); // warm up: V8 tiers, the pool fills
    for (let i = 0; i < 200; i++) await reference();
    for (const c of CONCURRENCY) {
      const ref = await load(seconds * 1000, c, reference);
      const runs = await load(seconds * 1000, c, run);
      metrics[`http_runs_per_s_c${c}`] = value(runs.perSecond, "per_s");
      metrics[`http_bare_req_per_s_c${c}`] = value(ref.perSecond, "per_s");
      metrics[`http_run_ratio_c${c}`] = value(runs.perSecond / ref.perSecond, "ratio");
      if (c === 32) {
        metrics.http_run_ratio = value(runs.perSecond / ref.perSecond, "ratio");
        metrics.http_run_p99_c32 = value(percentile(runs.latencies, 99), "ms");
        metrics.http_bare_p99_c32 = value(percentile(ref.latencies, 99), "ms");
      }
    }
    metrics.run_cost_agents_ratio = value(await agentsRatio(server, options.quick ? 100 : 400), "ratio");
    // The same load spread over 8 agents (after the figure above, which wants one agent stored):
    // one agent's calls hold at most `calls_per_agent` workers at once (docs/security.md "Grant
    // limits and fair share"), so this shows what that limit costs a server of one agent.
    for (let i = 1; i < 8; i++) await putAgent(server, `spread-${i}`);
    const spread = ["bench", ...Array.from({ length: 7 }, (_, i) => `spread-${i + 1}`)].map((name) => oneCallRun(server, name));
    let turn = 0;
    const spreadRun = () => spread[turn++ % spread.length]!();
    for (let i = 0; i < 40; i++) await spreadRun();
    const spreadRef = await load(seconds * 1000, 32, reference);
    const spreadRuns = await load(seconds * 1000, 32, spreadRun);
    metrics.http_runs_per_s_c32_8_agents = value(spreadRuns.perSecond, "per_s");
    metrics.http_run_ratio_c32_8_agents = value(spreadRuns.perSecond / spreadRef.perSecond, "ratio");
    return metrics;
  } finally {
    await bare.close();
    await server.close();
  }
}

/** Mean one-call run latency at c = 1 with 100 stored agents ÷ with 1, measured in turns. */
async function agentsRatio(server: BenchServer, runs: number): Promise<number> {
  const run = oneCallRun(server, "bench");
  const mean = async () => {
    for (let i = 0; i < 20; i++) await run();
    const started = performance.now();
    for (let i = 0; i < runs; i++) await run();
    return (performance.now() - started) / runs;
  };
  const one = await mean();
  for (let i = 1; i < 100; i++) await putAgent(server, `bench-${i}`);
  const hundred = await mean();
  return hundred / one;
}

export async function putAgent(server: BenchServer, name: string): Promise<void> {
  const manifest = {
    name,
    description: "reads one folder",
    model: { provider: "anthropic", id: "none" },
    system_prompt: "none",
    plugins: [{ name: "files", version: "*" }],
    grants: { "fs.read": { mounts: [{ guest: "/work", host: `${server.dataDir}/work` }] } },
  };
  const response = await send(`${server.url}/v1/agents/${name}`, { method: "PUT", token: server.token("admin"), body: JSON.stringify(manifest) });
  if (response.status !== 201 && response.status !== 200) throw new Error(`PUT agent ${name}: ${response.status} ${response.text.slice(0, 300)}`);
}

/** One `files.read_file` run, checked: a failed run is a bench failure, not a fast figure. */
export function oneCallRun(server: BenchServer, agent: string): () => Promise<void> {
  const url = `${server.url}/v1/runs?wait=true`;
  const body = JSON.stringify({ agent, tool_calls: [{ name: "files.read_file", input: { path: "/work/note.txt" } }] });
  const token = server.token("client");
  return async () => {
    const response = await send(url, { method: "POST", token, body });
    if (response.status !== 201) throw new Error(`bench run failed: ${response.status} ${response.text.slice(0, 300)}`);
    const result = JSON.parse(response.text) as { run?: { status: string; outcomes: Array<{ status: string }> } };
    if (result.run?.status !== "ended" || result.run.outcomes.some((o) => o.status !== "ok")) throw new Error(`bench run failed: ${response.text.slice(0, 300)}`);
  };
}

function bareRequest(base: string): () => Promise<void> {
  const url = `${base}/v1/runs`;
  const body = JSON.stringify({ agent: "bench", tool_calls: [{ name: "files.read_file", input: { path: "/work/note.txt" } }] });
  return async () => {
    const response = await send(url, { method: "POST", token: "x", body });
    if (response.status !== 201) throw new Error(`bare server: ${response.status}`);
    JSON.parse(response.text);
  };
}
