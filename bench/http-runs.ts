/**
 * Runs over HTTP as a user makes them (group `http`): `clawhive serve` in its own process, a
 * client token, a stored agent (PUT /v1/agents) granted one mount, policy and audit on, and one
 * Safe `files.read_file` per `POST /v1/runs?wait=true`. Each concurrency is measured in one loop
 * with the reference (a bare Hono server on the same kind of port, same client): slices of each
 * in turn, the ratio the median of the per-slice-pair ratios (interleave.ts).
 * - http_runs_per_s_cN / http_bare_req_per_s_cN: completions per second at concurrency N;
 * - http_run_ratio_cN: the two divided; http_run_ratio: the same at c = 32 (goal ≥ 0.10);
 * - http_run_p99_c32: the run's latency at the 99th percentile at c = 32 (goal ≤ 50 ms);
 * - http_runs_per_s_c32_8_agents / http_run_ratio_c32_8_agents: the same at c = 32 with the runs
 *   spread over 8 agents (what the per-agent fair share of the workers costs one agent);
 * - run_cost_agents_ratio: a one-call run's latency at c = 1 on a server with 100 stored agents ÷
 *   on one with 1, both started for it and warmed alike, blocks of runs to each in turn
 *   (goal ≤ 1.1): the per-run cost of agents the run does not use.
 */
import { value, type Metrics } from "./metrics.js";
import { interleaved, timedCalls } from "./interleave.js";
import { load, percentile, send, startBareServer, startServer, type BenchServer } from "./server.js";

const CONCURRENCY = [1, 8, 32, 64];
const ROUNDS = 3;

export async function benchHttpRuns(options: { quick?: boolean } = {}): Promise<Metrics> {
  // Per side and concurrency: ROUNDS slices of this many seconds.
  const seconds = options.quick ? 0.5 : 1.5;
  const metrics: Metrics = {};
  const server = await startServer();
  const bare = await startBareServer();
  try {
    await putAgent(server, "bench");
    const run = oneCallRun(server, "bench");
    const reference = bareRequest(bare.url);
    for (let i = 0; i < 50; i++) await run(); // warm up: V8 tiers, the pool fills
    for (let i = 0; i < 200; i++) await reference();
    const slice = seconds * 1000;
    for (const c of CONCURRENCY) {
      const pair = await loadPair(ROUNDS, slice, c, run, reference);
      metrics[`http_runs_per_s_c${c}`] = value(pair.runs.perSecond, "per_s");
      metrics[`http_bare_req_per_s_c${c}`] = value(pair.ref.perSecond, "per_s");
      metrics[`http_run_ratio_c${c}`] = value(pair.ratio, "ratio");
      if (c === 32) {
        metrics.http_run_ratio = value(pair.ratio, "ratio");
        metrics.http_run_p99_c32 = value(percentile(pair.runs.latencies, 99), "ms");
        metrics.http_bare_p99_c32 = value(percentile(pair.ref.latencies, 99), "ms");
      }
    }
    metrics.run_cost_agents_ratio = value(await agentsRatio(options.quick ? 100 : 400), "ratio");
    // The same load spread over 8 agents: one agent's calls hold at most `calls_per_agent`
    // workers at once (docs/security.md "Grant limits and fair share"), so this shows what that
    // limit costs a server of one agent.
    for (let i = 1; i < 8; i++) await putAgent(server, `spread-${i}`);
    const spread = ["bench", ...Array.from({ length: 7 }, (_, i) => `spread-${i + 1}`)].map((name) => oneCallRun(server, name));
    let turn = 0;
    const spreadRun = () => spread[turn++ % spread.length]!();
    for (let i = 0; i < 40; i++) await spreadRun();
    const spreadPair = await loadPair(ROUNDS, slice, 32, spreadRun, reference);
    metrics.http_runs_per_s_c32_8_agents = value(spreadPair.runs.perSecond, "per_s");
    metrics.http_run_ratio_c32_8_agents = value(spreadPair.ratio, "ratio");
    return metrics;
  } finally {
    await bare.close();
    await server.close();
  }
}

type Load = { perSecond: number; latencies: number[] };

/**
 * Runs and the reference at concurrency `c` in one loop: `rounds` slices of each in turn
 * (interleave.ts); the ratio is the median of the per-round ratios, the two sides' figures are
 * over all their slices.
 */
async function loadPair(rounds: number, sliceMs: number, c: number, run: () => Promise<void>, reference: () => Promise<void>): Promise<{ runs: Load; ref: Load; ratio: number }> {
  const runs: Load[] = [];
  const refs: Load[] = [];
  const side = (into: Load[], one: () => Promise<void>) => async () => {
    const slice = await load(sliceMs, c, one);
    into.push(slice);
    return [slice.perSecond];
  };
  const figures = await interleaved(rounds, side(runs, run), side(refs, reference));
  // A slice lasts until its last request in flight has answered, past `sliceMs`: the total is
  // over the slices' own durations.
  const total = (slices: Load[]): Load => {
    const count = slices.reduce((sum, s) => sum + s.latencies.length, 0);
    const seconds = slices.reduce((sum, s) => sum + (s.perSecond > 0 ? s.latencies.length / s.perSecond : 0), 0);
    return { perSecond: seconds > 0 ? count / seconds : 0, latencies: slices.flatMap((s) => s.latencies) };
  };
  return { runs: total(runs), ref: total(refs), ratio: figures.ratio };
}

/**
 * One-call run latency at c = 1 on a server with 100 stored agents ÷ on this one with 1: a
 * second server holds the 100, and blocks of runs go to each in turn (interleave.ts).
 */
/**
 * Two servers started for this figure, one with 1 stored agent and one with 100, each warmed by
 * the same runs: measured against the `http` group's server instead (warm from thousands of
 * runs), a fresh server read 1.2 with 100 agents or with 1 alike.
 */
async function agentsRatio(runs: number): Promise<number> {
  const one = await startServer();
  const hundred = await startServer();
  try {
    await putAgent(one, "bench");
    for (let i = 0; i < 100; i++) await putAgent(hundred, i === 0 ? "bench" : `bench-${i}`);
    const runOne = oneCallRun(one, "bench");
    const runHundred = oneCallRun(hundred, "bench");
    for (let i = 0; i < 50; i++) {
      await runOne();
      await runHundred();
    }
    const timedRuns = (run: () => Promise<void>) => async () => {
      for (let i = 0; i < 5; i++) await run();
      return timedCalls(20, run);
    };
    const figures = await interleaved(Math.max(3, Math.round(runs / 20)), timedRuns(runHundred), timedRuns(runOne));
    return figures.ratio;
  } finally {
    await one.close();
    await hundred.close();
  }
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
