/**
 * Bulk filesystem figures over a generated tree of 2,000 files (40 folders × 50 files of ~4 KB,
 * 8 MB), each a ratio to a reference measured in the same interleaved loop (interleave.ts):
 * - grep_2000_files_vs_grep_ratio: `files__grep` through `clawhive mcp serve` (stdio MCP, policy
 *   and audit on) ÷ `grep -rn` of the same pattern over the same tree, process start included;
 * - glob_2000_files_vs_fs_server_ratio: `files__glob` (`**\/*.ts`) through the same server ÷
 *   `search_files` of `@modelcontextprotocol/server-filesystem` (stdio, the same SDK client).
 * The absolute round trips are reported beside them (grep_2000_files_mcp, glob_2000_files_mcp).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { interleaved, timedCalls } from "./interleave.js";
import { latency, value, type Metrics } from "./metrics.js";

const run = promisify(execFile);
const NEEDLE = "NEEDLE_MARKER";
const WORDS = ["const", "function", "return", "import", "export", "value", "count", "index", "result", "buffer", "string", "number", "async", "await", "class", "this", "error", "throw", "new", "map"];

const AGENT = `name: searcher
description: Searches its workspace.
model: { provider: anthropic, id: none }
system_prompt: Not used; tools are called directly.
plugins:
  - { name: files, version: "*", tools: [glob, grep] }
grants:
  fs.read:
    mounts: [{ guest: /w, host: ./tree }]
  log: {}
`;

/** 40 × 50 files of ~4 KB of code-like lines; about one line in 500 holds the needle. */
export async function writeTree(root: string): Promise<void> {
  let seed = 1;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let d = 0; d < 40; d++) {
    await mkdir(join(root, `dir${d}`), { recursive: true });
    for (let f = 0; f < 50; f++) {
      let text = "";
      while (text.length < 4000) {
        const words = Array.from({ length: 3 + Math.floor(random() * 8) }, () => WORDS[Math.floor(random() * WORDS.length)]);
        if (random() < 0.002) words.push(NEEDLE);
        text += `  ${words.join(" ")}\n`;
      }
      await writeFile(join(root, `dir${d}`, `file${f}.ts`), text);
    }
  }
}

function stdio(command: string, args: string[]): { client: Client; transport: StdioClientTransport } {
  const transport = new StdioClientTransport({
    command,
    args,
    env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
    stderr: "ignore",
  });
  return { client: new Client({ name: "bench", version: "1" }), transport };
}

async function call(client: Client, name: string, args: Record<string, unknown>, check: (text: string) => boolean): Promise<void> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ text?: string }>)[0]?.text ?? "";
  if (result.isError || !check(text)) throw new Error(`bench ${name} failed: ${text.slice(0, 300)}`);
}

export async function benchBulkFs(options: { quick?: boolean } = {}): Promise<Metrics> {
  const calls = options.quick ? 12 : 60;
  const rounds = options.quick ? 3 : 6;
  const block = Math.ceil(calls / rounds);
  const root = await mkdtemp(join(tmpdir(), "clawhive-bench-bulk-"));
  const dataDir = join(root, "data");
  const agentsDir = join(root, "agents");
  const tree = join(dataDir, "tree");
  await mkdir(agentsDir, { recursive: true });
  await writeFile(join(agentsDir, "searcher.yaml"), AGENT);
  await writeTree(tree);
  const served = stdio(process.execPath, [join(PROJECT_ROOT, "bin", "clawhive.js"), "mcp", "serve", "--agent", "searcher", "--agents", agentsDir, "--data-dir", dataDir]);
  const modules = realpathSync(join(PROJECT_ROOT, "node_modules"));
  const reference = stdio(process.execPath, [join(modules, "@modelcontextprotocol", "server-filesystem", "dist", "index.js"), tree]);
  try {
    await served.client.connect(served.transport);
    await reference.client.connect(reference.transport);
    const clawhive = served.client;
    const fsServer = reference.client;
    const expected = (await run("grep", ["-rn", NEEDLE, tree], { maxBuffer: 1 << 26 })).stdout.split("\n").filter(Boolean).length;
    const grepMcp = () => call(clawhive, "files__grep", { pattern: NEEDLE, path: "/w", max_matches: 1000 }, (t) => (JSON.parse(t) as { matches: unknown[] }).matches.length === expected);
    const grepCli = async () => void (await run("grep", ["-rn", NEEDLE, tree], { maxBuffer: 1 << 26 }));
    const globMcp = () => call(clawhive, "files__glob", { pattern: "**/*.ts", path: "/w", limit: 5000 }, (t) => (JSON.parse(t) as { files: unknown[] }).files.length === 2000);
    const globServer = () => call(fsServer, "search_files", { path: tree, pattern: "**/*.ts" }, (t) => t.split("\n").length === 2000);
    // Warm: the plugin instance, the bulk worker, both servers and the page cache.
    for (let i = 0; i < 3; i++) for (const f of [grepMcp, globMcp, grepCli, globServer]) await f();
    const grep = await interleaved(rounds, () => timedCalls(block, grepMcp), () => timedCalls(block, grepCli));
    const glob = await interleaved(rounds, () => timedCalls(block, globMcp), () => timedCalls(block, globServer));
    return {
      grep_2000_files_mcp: latency(grep.a, "ms"),
      grep_2000_files_grep: latency(grep.b, "ms"),
      grep_2000_files_vs_grep_ratio: value(grep.ratio, "ratio"),
      glob_2000_files_mcp: latency(glob.a, "ms"),
      glob_2000_files_fs_server: latency(glob.b, "ms"),
      glob_2000_files_vs_fs_server_ratio: value(glob.ratio, "ratio"),
    };
  } finally {
    await served.client.close().catch(() => undefined);
    await reference.client.close().catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
}
