/**
 * The shipped MCP server over stdio beside the unsandboxed reference server, the same read of the
 * same file through the same SDK client:
 * - mcp_read_vs_fs_server_ratio: a `tools/call` of `files__read_file` to `clawhive mcp serve`
 *   (policy and audit on, a file store) ÷ a `tools/call` of `read_text_file` to
 *   `@modelcontextprotocol/server-filesystem`, both sessions open, blocks of calls to each in
 *   turn (interleave.ts);
 * - mcp_first_call_vs_fs_server_ratio: the first `tools/call` of a new session (launched,
 *   initialized and its tools listed, as a client does before it calls), each side a new
 *   session per sample, sessions of each in turn.
 * `mcp_read_stdio`, `fs_server_read_stdio`, `mcp_first_call_stdio`, `fs_server_first_call_stdio`
 * are the two sides.
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { interleaved, timedCalls } from "./interleave.js";
import { latency, value, type Metrics } from "./metrics.js";

interface Side {
  open(): Promise<Client>;
  call(client: Client): Promise<void>;
}

export async function benchMcpStdio(dirs: { dataDir: string; agentsDir: string; workspace: string }, options: { quick?: boolean } = {}): Promise<Metrics> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const clawhive = side(
    { command: process.execPath, args: [join(PROJECT_ROOT, "bin", "clawhive.js"), "mcp", "serve", "--agent", "reader", "--agents", dirs.agentsDir, "--data-dir", dirs.dataDir], env },
    { name: "files__read_file", arguments: { path: "/w/note.md" } },
  );
  const reference = side(
    { command: process.execPath, args: [join(PROJECT_ROOT, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js"), dirs.workspace], env },
    { name: "read_text_file", arguments: { path: join(dirs.workspace, "note.md") } },
  );
  const metrics: Metrics = {};
  const [a, b] = await Promise.all([clawhive.open(), reference.open()]);
  try {
    for (let i = 0; i < 20; i++) await Promise.all([clawhive.call(a), reference.call(b)]);
    const rounds = options.quick ? 4 : 12;
    const block = options.quick ? 20 : 40;
    const warm = await interleaved(rounds, () => timedCalls(block, () => clawhive.call(a)), () => timedCalls(block, () => reference.call(b)));
    metrics.mcp_read_stdio = latency(warm.a);
    metrics.fs_server_read_stdio = latency(warm.b);
    metrics.mcp_read_vs_fs_server_ratio = value(warm.ratio, "ratio");
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
  const first = await interleaved(options.quick ? 2 : 6, () => firstCalls(clawhive, 2), () => firstCalls(reference, 2));
  metrics.mcp_first_call_stdio = latency(first.a, "ms");
  metrics.fs_server_first_call_stdio = latency(first.b, "ms");
  metrics.mcp_first_call_vs_fs_server_ratio = value(first.ratio, "ratio");
  return metrics;
}

function side(server: { command: string; args: string[]; env: Record<string, string> }, call: { name: string; arguments: Record<string, unknown> }): Side {
  return {
    open: async () => {
      const client = new Client({ name: "bench", version: "1" });
      await client.connect(new StdioClientTransport({ ...server, stderr: "ignore" }));
      // What a client does before its first call: it asks for the tools.
      await client.listTools();
      return client;
    },
    call: async (client) => {
      const result = await client.callTool(call);
      if (result.isError) throw new Error(`bench MCP ${call.name} failed: ${JSON.stringify(result).slice(0, 300)}`);
    },
  };
}

/** `n` new sessions of `of`, the first call of each timed (µs). */
async function firstCalls(of: Side, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const client = await of.open();
    try {
      samples.push(...(await timedCalls(1, () => of.call(client))));
    } finally {
      await client.close();
    }
  }
  return samples;
}
