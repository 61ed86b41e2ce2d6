/**
 * MCP figures, each the same Safe call (`files.read_file` of a small file, policy and audit on):
 * - mcp_tool_call_stdio: a `tools/call` to `clawhive mcp serve` over stdio (the SDK's client,
 *   as Claude Code or Claude Desktop launch it), round trip;
 * - mcp_tool_call_http: a `tools/call` to `/mcp` on the API server (streamable HTTP, a client
 *   token), round trip;
 * - v1_tool_call_http: the same call as a one-call run through `POST /v1/runs?wait=true`, the
 *   reference both are read against (an MCP session is one run, so its calls skip the run's
 *   creation and end);
 * - mcp_http_ratio: mcp_tool_call_http ÷ v1_tool_call_http, measured in one loop: blocks of each
 *   in turn, the median of the per-round ratios of medians (interleave.ts).
 * - mcp_client_call, mcp_client_ratio: the other way round (mcp-client.ts);
 * - mcp_read_vs_fs_server_ratio, mcp_first_call_vs_fs_server_ratio: stdio beside the
 *   unsandboxed filesystem MCP server (mcp-stdio.ts).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { API_SERVER_OPTIONS, createApp } from "../runtime/api/app.js";
import { openTokenStore } from "../runtime/api/auth/index.js";
import { Runtime } from "../runtime/index.js";
import { McpHttpSessions } from "../runtime/mcp/index.js";
import { latency, value, type Metrics } from "./metrics.js";
import { benchMcpClient } from "./mcp-client.js";
import { benchMcpStdio } from "./mcp-stdio.js";
import { interleaved, timedCalls } from "./interleave.js";

const AGENT = `name: reader
description: Reads its workspace.
model: { provider: anthropic, id: none }
system_prompt: Not used; tools are called directly.
plugins:
  - { name: files, version: "*", tools: [read_file] }
grants:
  fs.read:
    mounts: [{ guest: /w, host: ./workspace }]
  log: {}
`;

const CALL = { name: "files__read_file", arguments: { path: "/w/note.md" } };

/** `stdioOnly`: only the stdio figures beside the filesystem server (group `mcp-stdio`). */
export async function benchMcp(options: { quick?: boolean; stdioOnly?: boolean } = {}): Promise<Metrics> {
  const calls = options.quick ? 60 : 300;
  const root = await mkdtemp(join(tmpdir(), "clawhive-bench-mcp-"));
  const dataDir = join(root, "data");
  const agentsDir = join(root, "agents");
  await mkdir(join(dataDir, "workspace"), { recursive: true });
  await mkdir(agentsDir);
  await writeFile(join(agentsDir, "reader.yaml"), AGENT);
  await writeFile(join(dataDir, "workspace", "note.md"), "a short note\n");
  try {
    const stdio = await benchMcpStdio({ dataDir, agentsDir, workspace: join(dataDir, "workspace") }, options);
    if (options.stdioOnly === true) return stdio;
    const { mcp, v1, ratio } = await httpCalls(dataDir, agentsDir, calls);
    const client = await benchMcpClient(dataDir, agentsDir, calls);
    return {
      ...client,
      ...stdio,
      // The same figure as mcp_read_stdio, under the name it has always had.
      ...(stdio.mcp_read_stdio === undefined ? {} : { mcp_tool_call_stdio: stdio.mcp_read_stdio }),
      mcp_tool_call_http: latency(mcp),
      v1_tool_call_http: latency(v1),
      mcp_http_ratio: value(ratio, "ratio"),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function check(client: Client): Promise<void> {
  const result = await client.callTool(CALL);
  if (result.isError) throw new Error(`bench MCP call failed: ${JSON.stringify(result).slice(0, 300)}`);
}

async function httpCalls(dataDir: string, agentsDir: string, calls: number): Promise<{ mcp: number[]; v1: number[]; ratio: number }> {
  const runtime = await Runtime.create({ dataDir, agentsDir });
  const sessions = new McpHttpSessions(runtime, { version: "bench" });
  let server: ServerType | undefined;
  try {
    const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
    const token = (await tokens.create("client")).token;
    const app = createApp({ runtime, tokens, version: "bench", mcp: sessions });
    await new Promise<void>((resolve) => {
      server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0, serverOptions: { ...API_SERVER_OPTIONS } }, () => resolve());
    });
    const base = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    const client = new Client({ name: "bench", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp?agent=reader`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    await client.connect(transport);
    const body = JSON.stringify({ agent: "reader", tool_calls: [{ name: "files.read_file", input: CALL.arguments }] });
    const post = async () => {
      const response = await fetch(`${base}/v1/runs?wait=true`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body });
      const result = (await response.json()) as { run?: { outcomes: Array<{ status: string }> } };
      if (response.status !== 201 || result.run?.outcomes[0]?.status !== "ok") throw new Error(`bench /v1 run failed: ${response.status}`);
    };
    for (let i = 0; i < 10; i++) await check(client);
    for (let i = 0; i < 10; i++) await post();
    // One loop, blocks of each in turn (interleave.ts): the session stays open between blocks.
    const rounds = Math.max(3, Math.round(calls / 30));
    const figures = await interleaved(rounds, () => timedCalls(Math.ceil(calls / rounds), () => check(client)), () => timedCalls(Math.ceil(calls / rounds), post));
    await transport.terminateSession();
    await client.close();
    return { mcp: figures.a, v1: figures.b, ratio: figures.ratio };
  } finally {
    await sessions.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await runtime.close();
  }
}
