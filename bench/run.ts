/**
 * `npm run bench` prints the project's figures beside the raw-wasm floor and the Extism peer;
 * `npm run bench -- --json` prints one JSON object, metric name → {p50, p95, unit} | {value, unit}.
 * `--quick` runs a fifth of the iterations (for a smoke check, not for quoting).
 */
import { readFile } from "node:fs/promises";
import { measureExtism, measureRaw } from "./peers/index.js";
import { latency, type Metric, type Metrics } from "./metrics.js";
import { benchSandbox } from "./sandbox.js";
import { benchTyped } from "./typed.js";
import { benchAudit } from "./audit.js";
import { benchPolicy } from "./policy.js";
import { benchPlugins } from "./plugins.js";
import { benchHttp } from "./http.js";
import { benchLlm } from "./llm.js";
import { benchLoop } from "./loop.js";
import { benchMemory } from "./memory.js";
import { benchMcp } from "./mcp.js";
import { benchWasi } from "./wasi.js";
import { benchStore } from "./store.js";

const json = process.argv.includes("--json");
const quick = process.argv.includes("--quick");
const log = (line: string) => {
  if (!json) process.stderr.write(`${line}\n`);
};

const metrics: Metrics = {};
log("sandbox …");
const sandbox = await benchSandbox({ quick });
Object.assign(metrics, sandbox.metrics);

log("typed WIT exports beside describe/call …");
Object.assign(metrics, await benchTyped({ quick }));

log("WASI component …");
Object.assign(metrics, await benchWasi({ quick, toolCallRoundTrip: metrics.tool_call_roundtrip }));

log("policy and audit on (file store) …");
Object.assign(metrics, await benchPolicy({ quick }));

log("audit log …");
const audit = await benchAudit(quick ? { calls: 4000, serialCalls: 1000, warmup: 200 } : {});
Object.assign(metrics, audit);

log("plugin install …");
Object.assign(metrics, await benchPlugins({ quick }));

log("HTTP API …");
Object.assign(metrics, await benchHttp({ quick }));

log("MCP server (stdio, HTTP) beside /v1 …");
Object.assign(metrics, await benchMcp({ quick }));

log("LLM adapters and the run loop …");
Object.assign(metrics, await benchLlm({ quick }));
Object.assign(metrics, await benchLoop({ quick }));

log("memory search at 10,000 episodes …");
Object.assign(metrics, await benchMemory({ quick }));

log("several nodes on a libSQL server (sqld): tool call, takeover, chaos …");
Object.assign(metrics, await benchStore({ quick, log }));

log("raw wasm floor …");
const raw = await measureRaw(new Uint8Array(await readFile(sandbox.probeCoreWasm)));
metrics.raw_wasm_instance_ready = latency(raw.instanceReady, "ms");
metrics.raw_wasm_call = latency(raw.call);

log("extism peer …");
const extism = await measureExtism();
metrics.extism_instance_ready = latency(extism.instanceReady, "ms");
metrics.extism_call = latency(extism.call);

if (json) {
  process.stdout.write(`${JSON.stringify(metrics)}\n`);
} else {
  const show = (m: Metric | undefined) => (!m ? "—" : "value" in m ? `${m.value} ${m.unit}` : `p50 ${m.p50} / p95 ${m.p95} ${m.unit}`);
  const rows: Array<[string, string, string, string]> = [
    ["instance ready", show(metrics.instance_ready_cold) + " (cold)", show(metrics.raw_wasm_instance_ready), show(metrics.extism_instance_ready)],
    ["", show(metrics.instance_ready_warm) + " (warm)", "", ""],
    ["guest call", show(metrics.tool_call_roundtrip) + " (round trip)", show(metrics.raw_wasm_call), show(metrics.extism_call)],
  ];
  console.log(["", "clawhive", "raw wasm (floor)", "extism (peer)"].map((h) => h.padEnd(34)).join(""));
  for (const row of rows) console.log(row.map((c) => c.padEnd(34)).join(""));
  console.log("");
  for (const [name, metric] of Object.entries(metrics)) console.log(`${name.padEnd(28)} ${show(metric)}`);
}
