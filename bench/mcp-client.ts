/**
 * The MCP client's figures: the same Safe read, policy and audit on, as one ToolCall of a run
 * - mcp_client_call: to the published filesystem MCP server, run confined (stdio, bubblewrap);
 * - mcp_client_ratio: it ÷ the same read through the first-party WASM plugin (`files.read_file`),
 *   measured in one loop: a run of each open, blocks of calls in turn, the median of the
 *   per-round ratios of medians (interleave.ts).
 * Skipped (no figures) where bubblewrap is not usable: a stdio server never runs unconfined.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../host-proxies/shell/index.js";
import { Runtime } from "../runtime/index.js";
import { PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { latency, value, type Metrics } from "./metrics.js";
import { interleaved, timedCalls } from "./interleave.js";

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
    const mcpRun = await openedRun(runtime, "mcp-reader", "files.read_text_file");
    const wasmRun = await openedRun(runtime, "reader", "files.read_file");
    try {
      const rounds = Math.max(3, Math.round(calls / 30));
      const block = Math.ceil(calls / rounds);
      const figures = await interleaved(rounds, () => timedCalls(block, mcpRun.call), () => timedCalls(block, wasmRun.call));
      return { mcp_client_call: latency(figures.a), mcp_client_ratio: value(figures.ratio, "ratio") };
    } finally {
      await mcpRun.end();
      await wasmRun.end();
    }
  } finally {
    await runtime.close();
  }
}

/** A run of `agent` whose `call` makes one checked ToolCall, warmed up (server or instance started). */
async function openedRun(runtime: Runtime, agent: string, tool: string): Promise<{ call: () => Promise<void>; end: () => Promise<unknown> }> {
  const run = await runtime.startRun({ agent });
  const call = async () => {
    const outcome = await run.callTool(tool, { path: "/w/note.md" });
    if (outcome.status !== "ok") throw new Error(`bench ${tool} failed: ${JSON.stringify(outcome).slice(0, 300)}`);
  };
  for (let i = 0; i < 10; i++) await call();
  return { call, end: () => run.end() };
}
