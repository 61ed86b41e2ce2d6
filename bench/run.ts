/**
 * `npm run bench` prints the project's figures beside the raw-wasm floor and the Extism peer;
 * `npm run bench -- --json` prints one JSON object, metric name → {p50, p95, unit} | {value, unit}.
 * `--only g1,g2` runs those groups; `--all` adds the long groups (soak, memory-100k,
 * first-start) to the default ones; `--quick` runs a fraction of the iterations (a smoke check,
 * not for quoting). docs/bench.md says what every key measures.
 */
import { benchPush } from "./push.js";
import { readFile } from "node:fs/promises";
import { measureExtism, measureRaw } from "./peers/index.js";
import { latency, type Metric, type Metrics } from "./metrics.js";
import { benchSandbox } from "./sandbox.js";
import { benchTyped } from "./typed.js";
import { benchAudit } from "./audit.js";
import { benchPolicy } from "./policy.js";
import { benchPlugins } from "./plugins.js";
import { benchHttp } from "./http.js";
import { benchHttpRuns } from "./http-runs.js";
import { benchLlm } from "./llm.js";
import { benchToolLists } from "./llm-tool-list.js";
import { benchLoop } from "./loop.js";
import { benchMemory, benchMemory100k } from "./memory.js";
import { benchMcp } from "./mcp.js";
import { benchBulkFs } from "./bulk-fs.js";
import { benchWasi } from "./wasi.js";
import { benchStore } from "./store.js";
import { benchCli } from "./cli.js";
import { benchSoak } from "./soak.js";
import { benchRssRuns } from "./rss-runs.js";
import { benchBuild, benchFirstStart } from "./build.js";
import { benchGuest } from "./guest.js";

const args = process.argv.slice(2);
const json = args.includes("--json");
const quick = args.includes("--quick");
const log = (line: string) => {
  if (!json) process.stderr.write(`${line}\n`);
};

type Group = { about: string; long?: boolean; run: () => Promise<Metrics> };
let probeCoreWasm: string | undefined;
const groups: Record<string, Group> = {
  sandbox: {
    about: "sandbox (bare instances)",
    run: async () => {
      const sandbox = await benchSandbox({ quick });
      probeCoreWasm = sandbox.probeCoreWasm;
      return sandbox.metrics;
    },
  },
  typed: { about: "typed WIT exports beside describe/call", run: () => benchTyped({ quick }) },
  wasi: { about: "a WASI component's call beside a bare tool call", run: () => benchWasi({ quick }) },
  policy: { about: "policy and audit on (file store), against a bare instance", run: () => benchPolicy({ quick }) },
  audit: { about: "audit log", run: async () => ({ ...(await benchAudit(quick ? { calls: 4000, serialCalls: 1000, warmup: 200 } : {})) }) },
  plugins: { about: "plugin install", run: () => benchPlugins({ quick }) },
  http: { about: "HTTP API: runs through a served process beside a bare Hono server", run: async () => ({ ...(await benchHttpRuns({ quick })), ...(await benchHttp({ quick })) }) },
  cli: { about: "CLI: clawhive call beside node -e 0", run: () => benchCli({ quick }) },
  mcp: { about: "MCP server (stdio, HTTP) beside /v1", run: () => benchMcp({ quick }) },
  bulk: { about: "files.grep and files.glob over 2,000 files (8 MB) beside grep -rn and server-filesystem", run: () => benchBulkFs({ quick }) },
  "mcp-stdio": { about: "MCP server over stdio beside the filesystem MCP server (part of mcp)", long: true, run: () => benchMcp({ quick, stdioOnly: true }) },
  llm: { about: "LLM adapters and the run loop", run: async () => ({ ...(await benchLlm({ quick })), ...(await benchToolLists()), ...(await benchLoop({ quick })) }) },
  memory: { about: "memory search at 10,000 episodes", run: () => benchMemory({ quick }) },
  rss: { about: "resident memory of 100 live runs, and after they end", run: () => benchRssRuns({ quick }) },
  build: { about: "plugin components: size, one build from source", run: () => benchBuild() },
  guest: { about: "an AssemblyScript guest beside a componentize-js one: size, first call, warm call, memory, build", run: () => benchGuest({ quick }) },
  peers: {
    about: "raw wasm floor and the Extism peer",
    run: async () => {
      const metrics: Metrics = {};
      if (probeCoreWasm) {
        const raw = await measureRaw(new Uint8Array(await readFile(probeCoreWasm)));
        metrics.raw_wasm_instance_ready = latency(raw.instanceReady, "ms");
        metrics.raw_wasm_call = latency(raw.call);
      }
      const extism = await measureExtism();
      metrics.extism_instance_ready = latency(extism.instanceReady, "ms");
      metrics.extism_call = latency(extism.call);
      return metrics;
    },
  },
  store: { about: "several nodes on a libSQL server (sqld): tool call, takeover, chaos", run: () => benchStore({ quick, log }) },
  push: { about: "rendering a Slack, Teams or Telegram approval message beside serialising the signed JSON payload", run: () => benchPush({ quick }) },
  soak: { about: "10,000 runs over HTTP: the server's memory", long: true, run: () => benchSoak({ quick }) },
  "memory-100k": { about: "keyword memory search at 100,000 episodes", long: true, run: () => benchMemory100k({ quick }) },
  "first-start": { about: "first start with no plugin built", long: true, run: () => benchFirstStart() },
};

const only = args.find((a) => a.startsWith("--only"));
const onlyValue = only?.includes("=") ? only.slice(only.indexOf("=") + 1) : only ? args[args.indexOf(only) + 1] : undefined;
const chosen = onlyValue !== undefined ? onlyValue.split(",").map((g) => g.trim()).filter(Boolean) : Object.keys(groups).filter((g) => args.includes("--all") || !groups[g]!.long);
const unknown = chosen.filter((g) => !Object.hasOwn(groups, g));
if (unknown.length > 0 || chosen.length === 0) {
  process.stderr.write(`bench: unknown group ${unknown.join(", ") || "(none)"}; groups: ${Object.keys(groups).join(", ")}\n`);
  process.exit(2);
}
// The raw-wasm floor loads the sandbox group's probe module.
if (chosen.includes("peers") && !chosen.includes("sandbox")) chosen.unshift("sandbox");

const metrics: Metrics = {};
const benchStarted = performance.now();
for (const name of chosen) {
  const group = groups[name]!;
  log(`${name}: ${group.about} …`);
  const started = performance.now();
  try {
    Object.assign(metrics, await group.run());
  } catch (error) {
    // One group failing does not lose the others' figures; the exit code says it failed.
    process.stderr.write(`bench: group ${name} failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  }
  log(`${name}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
log(`bench: ${((performance.now() - benchStarted) / 1000).toFixed(0)} s`);

if (json) {
  process.stdout.write(`${JSON.stringify(metrics)}\n`);
} else {
  const show = (m: Metric | undefined) => (!m ? "—" : "value" in m ? `${m.value} ${m.unit}` : `p50 ${m.p50} / p95 ${m.p95} ${m.unit}`);
  if (metrics.instance_ready_cold) {
    const rows: Array<[string, string, string, string]> = [
      ["instance ready", show(metrics.instance_ready_cold) + " (cold)", show(metrics.raw_wasm_instance_ready), show(metrics.extism_instance_ready)],
      ["guest call", show(metrics.tool_call_roundtrip_bare) + " (round trip)", show(metrics.raw_wasm_call), show(metrics.extism_call)],
    ];
    console.log(["", "clawhive", "raw wasm (floor)", "extism (peer)"].map((h) => h.padEnd(34)).join(""));
    for (const row of rows) console.log(row.map((c) => c.padEnd(34)).join(""));
    console.log("");
  }
  for (const [name, metric] of Object.entries(metrics)) console.log(`${name.padEnd(34)} ${show(metric)}`);
}
