/**
 * The MCP client's figures: the same Safe read, policy and audit on, as one ToolCall of a run
 * - mcp_client_call: to the published filesystem MCP server, run confined (stdio, bubblewrap);
 * - mcp_client_ratio: its p50 ÷ the p50 of the same read through the first-party WASM plugin
 *   (`files.read_file`), measured in the same run.
 * Skipped (no figures) where bubblewrap is not usable: a stdio server never runs unconfined.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../host-proxies/shell/index.js";
import { Runtime } from "../runtime/index.js";
import { PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { latency, value, type Metrics } from "./metrics.js";

export async function benchMcpClient(dataDir: string, agentsDir: string, calls: number): Promise<Metrics> {
  if (!(await probeSandbox()).available) return {};
  const modules = realpathSync(join(PROJECT_ROOT, "node_modules"));
  const runtime = await Runtime.create({ dataDir, agentsDir });
  try {
    const agent = await runtime.defineAgent({
      name: "mcp-reader",
      description: "Reads its workspace through an MCP server.",
      model: { provider: "anthropic", id: "none" },
      system_prompt: "Not used; tools are called directly.",
      mcp_servers: {
        files: {
          command: "node",
          args: [join(modules, "@modelcontextprotocol", "server-filesystem", "dist", "index.js"), "/w"],
          read_only: [modules],
          mounts: [{ guest: "/w", host: "./workspace", mode: "ro" }],
          tools: ["read_text_file"],
        },
      },
      approvals: { lower_risk: [{ tool: "files.read_text_file", to: "safe", acknowledged: true }] },
    });
    const review = await runtime.mcpClient.review(agent, "files");
    await runtime.mcpClient.accept(agent, "files", { diffHash: review.diff.hash, by: "bench" });
    const mcp = await timedRun(runtime, "mcp-reader", "files.read_text_file", calls);
    const wasm = await timedRun(runtime, "reader", "files.read_file", calls);
    return { mcp_client_call: latency(mcp), mcp_client_ratio: value(median(mcp) / median(wasm), "ratio") };
  } finally {
    await runtime.close();
  }
}

/** `calls` ToolCalls in one run (the server or instance started by the warm-up), in µs. */
async function timedRun(runtime: Runtime, agent: string, tool: string, calls: number): Promise<number[]> {
  const run = await runtime.startRun({ agent });
  try {
    const call = async () => {
      const outcome = await run.callTool(tool, { path: "/w/note.md" });
      if (outcome.status !== "ok") throw new Error(`bench ${tool} failed: ${JSON.stringify(outcome).slice(0, 300)}`);
    };
    for (let i = 0; i < 10; i++) await call();
    const samples: number[] = [];
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      await call();
      samples.push((performance.now() - started) * 1000);
    }
    return samples;
  } finally {
    await run.end();
  }
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}
