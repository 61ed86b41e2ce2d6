/**
 * `clawhive memory`: a person's side of an agent's long-term memory — search, write and forget
 * episodes, show and edit MEMORY.md — through the API's memory routes, of a server (`--server`,
 * whose embeddings configuration applies) or of a runtime opened here on the store.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClawhiveClient } from "../client/client.js";
import { loadConfig } from "../config/index.js";
import { ClawhiveError, InvalidInputError } from "../errors.js";
import { MEMORY_FILE_MAX_BYTES, personScope } from "../memory/index.js";
import { parseCommandArgs } from "./args.js";
import { resolveServer, segment, SERVER_FLAGS, SERVER_FLAGS_HELP } from "./client.js";
import { withExistingClient, type CommandClientOptions } from "./command-client.js";
import { flagText, inert, jsonOut } from "./render.js";
import { STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

export const memoryHelp = `clawhive memory — an agent's long-term memory: search, write, forget; its MEMORY.md

  clawhive memory search AGENT "QUERY" [--k N] [--scope SCOPE] [--json]
  clawhive memory write AGENT ["TEXT"] [--title T] [--scope SCOPE]   (no TEXT: read from stdin)
  clawhive memory forget AGENT EPISODE_ID [--scope SCOPE]
  clawhive memory show AGENT
  clawhive memory edit AGENT

  search: the agent's memory, its sub-agents' partitions included, best first (hybrid search
  when memory.embeddings is configured, else keyword); --k hits (1-100, default 10).
  write: a note from a person (trusted), into the agent's own partition.
  --scope SCOPE     agent (default), user or project/<name>: shared memory, the same for every agent
  show: prints the agent's MEMORY.md (read into every system prompt of the agent).
  edit: opens MEMORY.md in $VISUAL or $EDITOR (default vi) and saves it when changed; at most
  ${MEMORY_FILE_MAX_BYTES} bytes.
  --json            print JSON (search)
  --agents DIR      (on the store) where agent manifests live, to check AGENT exists (default the
                    project's capabilities/; env CLAWHIVE_AGENTS_DIR); agents stored through the
                    API count too

${SERVER_FLAGS_HELP}
${STORE_FLAGS_HELP}

  Exit codes: 0 ok; 1 no such episode, the store or server could not be read, or the editor
  failed; 2 bad usage or input (an unknown agent, an empty note, a bad scope, MEMORY.md over
  its cap).

  Example:
    clawhive memory write assistant "Ada prefers short replies."
    clawhive memory search assistant "how does Ada like replies"`;

const usage = "usage: clawhive memory search AGENT QUERY | write AGENT [TEXT] | forget AGENT EPISODE_ID | show AGENT | edit AGENT";

const FLAGS = { ...STORE_FLAGS, ...SERVER_FLAGS, agents: { type: "string" }, k: { type: "string" }, scope: { type: "string" }, title: { type: "string" }, json: { type: "boolean" } } as const;

interface Hit {
  episode_id: string;
  title: string;
  text: string;
  score: number;
  untrusted: boolean;
  source: string;
  partition: string;
  created_at: string;
}

export async function memoryCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseCommandArgs(rest, FLAGS);
  const [agent, arg, ...extra] = positionals;
  if (sub === undefined || !["search", "write", "forget", "show", "edit"].includes(sub)) throw new InvalidInputError(sub === undefined ? usage : `unknown memory command '${sub}'; ${usage}`);
  if (agent === undefined || extra.length > 0) throw new InvalidInputError(usage);
  const server = (await resolveServer(values)) !== undefined;
  if (server && values.agents !== undefined) throw new InvalidInputError("--agents does not combine with --server: the server has its own", { field: "agents" });
  const scope = flagText(values, "scope");
  // Checked here, before a store, an agent or a server is asked anything.
  if (scope !== undefined) personScope(scope);
  const target: Target = { values, agent, arg, base: `/v1/agents/${segment(agent)}`, scope, on: async (body) => withExistingClient(values, body, server ? {} : await runtimeConfig(values)) };
  const run = { search, write, forget, show, edit }[sub as "search" | "write" | "forget" | "show" | "edit"];
  return run(target);
}

/** One command's inputs: the agent, its one argument, and the client it acts through. */
interface Target {
  values: Record<string, unknown>;
  agent: string;
  arg: string | undefined;
  /** `/v1/agents/<agent>`. */
  base: string;
  scope: string | undefined;
  /** Runs `body` with the command's client, once the input is checked. */
  on: (body: (client: ClawhiveClient) => Promise<number>) => Promise<number>;
}

/**
 * On the store, the embeddings and key file the config (file and env) names: a person's note
 * written here is embedded like one written through a server.
 */
async function runtimeConfig(values: Record<string, unknown>): Promise<CommandClientOptions> {
  const config = await loadConfig({ env: process.env, cwd: process.cwd(), flags: values });
  return {
    // Memory needs no plugin: the first-party ones are not installed or upgraded for it.
    pluginDirs: [],
    ...(config.memory.embeddings === undefined ? {} : { memory: { embeddings: config.memory.embeddings } }),
    ...(config.secrets.keyFile === undefined ? {} : { secretKeyFile: config.secrets.keyFile }),
  };
}

async function search({ values, arg, base, scope, on }: Target): Promise<number> {
  if (arg === undefined) throw new InvalidInputError(`usage: clawhive memory search AGENT "QUERY"`, { field: "query" });
  const k = kFlag(flagText(values, "k"));
  return on(async (client) => printHits((await client.request<{ hits: Hit[] }>("GET", `${base}/memory`, { query: { q: arg, k, scope } })).hits, values.json === true));
}

async function write({ values, arg, base, scope, on }: Target): Promise<number> {
  const text = arg ?? (await stdinText());
  const title = flagText(values, "title");
  const json = { text, ...(title === undefined ? {} : { title }), ...(scope === undefined ? {} : { scope }) };
  return on(async (client) => {
    console.log(`remembered ${(await client.request<{ episode_id: string }>("POST", `${base}/memory`, { json })).episode_id}`);
    return 0;
  });
}

async function forget({ agent, arg, base, scope, on }: Target): Promise<number> {
  if (arg === undefined) throw new InvalidInputError("usage: clawhive memory forget AGENT EPISODE_ID", { field: "episode" });
  return on(async (client) => {
    if (!(await client.request("DELETE", `${base}/memory/${segment(arg)}`, { query: { scope } }).then(() => true, notFound))) {
      console.error(`clawhive: agent ${agent} has no episode ${inert(arg, { newlines: false })} in scope ${scope ?? "agent"}`);
      return 1;
    }
    console.log(`forgot ${arg}`);
    return 0;
  });
}

async function show({ agent, arg, base, on }: Target): Promise<number> {
  noArgument(arg);
  return on(async (client) => {
    const { text } = await client.request<{ text: string }>("GET", `${base}/memory-file`);
    if (text === "") console.error(`agent ${agent} has no MEMORY.md`);
    else console.log(text.endsWith("\n") ? text.slice(0, -1) : text);
    return 0;
  });
}

/** A 404 from the server is "no such episode"; any other error goes on. */
function notFound(error: unknown): false {
  if (error instanceof ClawhiveError && error.status === 404) return false;
  throw error;
}

/** Opens MEMORY.md (a temp copy) in the person's editor and saves it when it changed. */
async function edit({ agent, arg, base, on }: Target): Promise<number> {
  noArgument(arg);
  return on(async (client) => {
    const before = (await client.request<{ text: string }>("GET", `${base}/memory-file`)).text;
    const dir = await mkdtemp(join(tmpdir(), "clawhive-memory-"));
    try {
      const file = join(dir, "MEMORY.md");
      await writeFile(file, before);
      const editor = process.env.VISUAL || process.env.EDITOR || "vi";
      // Through sh, as git does: $EDITOR may carry its own arguments ("code --wait").
      const result = spawnSync("sh", ["-c", `${editor} "$1"`, "sh", file], { stdio: "inherit" });
      if (result.status !== 0) {
        console.error(`clawhive: the editor (${editor}) exited with ${result.status ?? result.signal}; MEMORY.md was not changed`);
        return 1;
      }
      const after = await readFile(file, "utf8");
      if (after === before) {
        console.error("MEMORY.md unchanged");
        return 0;
      }
      const bytes = Buffer.byteLength(after, "utf8");
      if (bytes > MEMORY_FILE_MAX_BYTES) throw new InvalidInputError(`MEMORY.md: ${bytes} bytes is over the ${MEMORY_FILE_MAX_BYTES}-byte cap; nothing was saved`, { field: "text" });
      await client.request("PUT", `${base}/memory-file`, { json: { text: after } });
      console.log(`saved MEMORY.md of ${agent} (${bytes} bytes)`);
      return 0;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

function kFlag(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,3}$/.test(text) || Number(text) < 1 || Number(text) > 100) throw new InvalidInputError(`--k ${text}: expected a whole number from 1 to 100`, { field: "k" });
  return Number(text);
}

function noArgument(arg: string | undefined): void {
  if (arg !== undefined) throw new InvalidInputError(`unexpected argument '${arg}'; ${usage}`);
}

async function stdinText(): Promise<string> {
  if (process.stdin.isTTY) throw new InvalidInputError(`usage: clawhive memory write AGENT "TEXT" (or the text on stdin)`, { field: "text" });
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** `100%` for the best hit, the others as a share of it. */
export function relevance(score: number, best: number): string {
  if (!(best > 0) || !Number.isFinite(score)) return "match";
  return `${Math.max(1, Math.round((100 * score) / best))}% of best`;
}

function printHits(hits: readonly Hit[], json: boolean): number {
  if (json) {
    console.log(jsonOut({ hits }));
    return 0;
  }
  if (hits.length === 0) console.error("no hits");
  // A raw score (BM25, or fused ranks) means nothing on its own: each hit is shown by its rank
  // and its score relative to the best hit's; --json keeps the raw score.
  const best = Math.max(...hits.map((h) => h.score));
  for (const [i, h] of hits.entries()) {
    const mark = h.untrusted ? "  UNTRUSTED" : "";
    console.log(`#${i + 1}  ${relevance(h.score, best)}  ${h.episode_id}  ${h.partition}  ${h.source}${mark}  ${h.created_at}`);
    console.log(`  ${inert(h.title, { newlines: false })}`);
    for (const line of h.text.split("\n").slice(0, 6)) console.log(`    ${inert(line, { newlines: false })}`);
  }
  return 0;
}
