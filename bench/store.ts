/**
 * Several nodes on a libSQL server (sqld): a ToolCall through a runtime on sqld beside the same
 * on a store file; how long until another node continues a run whose node was killed (kill -9);
 * and a short chaos round (nodes killed at random under load) counting lost and repeated effects.
 * Skipped, saying so, where no sqld binary is unpacked (see test/helpers/sqld.ts).
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Runtime } from "../runtime/index.js";
import { PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { allRows, openStore, type Store } from "../runtime/store/index.js";
import { startNode } from "../test/helpers/cluster.js";
import { sqldBinary, startSqld, type SqldServer } from "../test/helpers/sqld.js";
import { latency, value, type Metrics } from "./metrics.js";

const ECHO = join(PROJECT_ROOT, "bench", "plugins", "echo");

export async function benchStore(options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<Metrics> {
  const found = sqldBinary();
  if (!("path" in found)) {
    options.log?.(`  skipped: ${found.missing}`);
    return {};
  }
  const metrics: Metrics = {};
  const calls = options.quick ? 200 : 1000;
  metrics.file_tool_call = latency(await toolCalls({}, calls));
  // A fresh server each: a store's secrets are sealed with the key of the nodes that made it.
  metrics.sqld_tool_call = latency(await withServer((server) => toolCalls({ storeUrl: server.url, storeAuthToken: server.authToken! }, calls)));
  metrics.takeover_s = value((await withServer(takeover)) / 1000, "s");
  Object.assign(metrics, await withServer((server) => chaos(server, options.quick ? 5 : 20)));
  return metrics;
}

async function withServer<T>(work: (server: SqldServer) => Promise<T>): Promise<T> {
  const server = await startSqld({ auth: true });
  try {
    return await work(server);
  } finally {
    await server.stop();
  }
}

/** µs per explicit ToolCall (echo, policy and audit on) through a runtime on the given store. */
async function toolCalls(store: { storeUrl?: string; storeAuthToken?: string }, n: number): Promise<number[]> {
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-bench-store-"));
  await mkdir(join(dataDir, "agents"));
  const runtime = await Runtime.create({ dataDir, agentsDir: join(dataDir, "agents"), pluginDirs: [ECHO], sandbox: { poolSize: 2 }, ...store });
  try {
    await runtime.defineAgent({ name: "bench", description: "bench agent", model: { provider: "anthropic", id: "none" }, system_prompt: "bench", plugins: [{ name: "bench-echo", version: "*" }], grants: {} });
    const run = await runtime.startRun({ agent: "bench" });
    const input = { query: "a typical small tool input", limit: 10 };
    for (let i = 0; i < 50; i++) await run.callTool("bench-echo.echo", input);
    const samples: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await run.callTool("bench-echo.echo", input);
      samples.push((performance.now() - started) * 1000);
    }
    await run.end();
    return samples;
  } finally {
    await runtime.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** ms from kill -9 of the node driving a run until another node's model is asked to continue it. */
async function takeover(server: SqldServer): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-bench-takeover-"));
  const auth = { authToken: server.authToken! };
  const survivor = startNode({ url: server.url, dataDir, name: "survivor", mode: "idle", ...auth });
  const victim = startNode({ url: server.url, dataDir, name: "victim", mode: "hang", ...auth });
  try {
    await survivor.waitFor((l) => l.ready !== undefined, 120_000);
    await victim.waitFor((l) => (l.asked ?? 0) >= 3, 120_000);
    const killedAt = performance.now();
    await victim.kill();
    await survivor.waitFor((l) => l.asked !== undefined, 120_000);
    return performance.now() - killedAt;
  } finally {
    await victim.kill();
    await survivor.kill();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Effects lost (intent without outcome) and repeated (one file written twice) after `kills` kill -9s. */
async function chaos(server: SqldServer, kills: number): Promise<Metrics> {
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-bench-chaos-"));
  const auth = { authToken: server.authToken! };
  const nodes = ["c1", "c2", "c3"].map((name) => startNode({ url: server.url, dataDir, name, mode: "load", count: 8, ...auth }));
  let live = [...nodes];
  const store = await openStore({ url: server.url, ...auth });
  try {
    await Promise.all(live.map((n) => n.waitFor((l) => l.ready !== undefined, 120_000)));
    for (let k = 0; k < kills; k++) {
      await new Promise((resolve) => setTimeout(resolve, 1000 + Math.random() * 1500));
      const victim = live[Math.floor(Math.random() * live.length)]!;
      await victim.kill();
      const next = startNode({ url: server.url, dataDir, name: victim.name, mode: "load", count: 3, ...auth });
      nodes.push(next);
      live = [...live.filter((n) => n !== victim), next];
    }
    for (let i = 0; i < 240; i++) {
      if (Number((await store.execute("SELECT count(*) AS n FROM runs WHERE status = 'active'")).rows[0]?.n) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return await countEffects(store);
  } finally {
    await Promise.all(nodes.map((n) => n.kill()));
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function countEffects(store: Store): Promise<Metrics> {
  const records = await allRows(store, { page: (after, limit) => ({ sql: "SELECT seq, status, decision, intent_seq, args FROM audit_records WHERE seq > ? AND kind = 'host_call' ORDER BY seq LIMIT ?", args: [after ?? 0, limit] }), key: (r) => r.seq as number });
  const outcomes = new Set(records.filter((r) => r.intent_seq !== null).map((r) => Number(r.intent_seq)));
  const intents = records.filter((r) => r.status === "intent" && r.decision === "allow");
  const paths = new Map<string, number>();
  for (const r of intents) {
    const path = (JSON.parse(String(r.args)) as { path?: string }).path ?? String(r.seq);
    paths.set(path, (paths.get(path) ?? 0) + 1);
  }
  return {
    chaos_effects: value(intents.length, "count"),
    chaos_lost_effects: value(intents.filter((r) => !outcomes.has(Number(r.seq))).length, "count"),
    chaos_duplicate_effects: value([...paths.values()].filter((n) => n > 1).length, "count"),
  };
}
