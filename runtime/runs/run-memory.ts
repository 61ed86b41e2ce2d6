/**
 * How runs reach long-term memory: the runtime's one MemoryStore (opened on first use, with an
 * embedder when one is configured), whether a run's memory writes are untrusted, and the memory
 * zone of a model-driven run's system prompt.
 */
import { agentMemoryBinding } from "../../host-proxies/memory/index.js";
import type { AuditLog } from "../audit/index.js";
import { MemoryStore, memoryZone, OpenAiEmbedder, readMemoryFile, type MemoryHit } from "../memory/index.js";
import { capabilityMatches, type CapabilityGrant } from "../policy/catalogue/index.js";
import type { PolicyLayers } from "../policy/engine.js";
import type { Clock, Migration, Store } from "../store/index.js";

/** An OpenAI-compatible embeddings endpoint (config `memory.embeddings`). */
export interface EmbeddingsConfig {
  baseUrl: string;
  model: string;
  dimensions: number;
  /** The stored secret holding the API key; none for an endpoint without one (a local server). */
  apiKeySecret?: string | undefined;
}

/** The plugin whose tools read and write memory: its own output does not make a run's writes untrusted. */
export const MEMORY_PLUGIN = "memory";

/** Hits the memory zone recalls for a run's task. */
export const ZONE_HITS = 5;

/** `open()` opens the store once (concurrent first calls share it); a failed open is retried next time. */
export function lazyMemoryStore(store: Store, options: { clock: Clock; embeddings?: EmbeddingsConfig | undefined; secretValue: (name: string) => Promise<string> }): () => Promise<MemoryStore> {
  let opening: Promise<MemoryStore> | undefined;
  return () => {
    opening ??= MemoryStore.open(store, { clock: options.clock, ...(options.embeddings ? { embedder: embedderOf(options.embeddings, options.secretValue) } : {}) }).catch((error: unknown) => {
      opening = undefined;
      throw error;
    });
    return opening;
  };
}

/** The OpenAI-compatible embedder of `config`; its key is read from the secret store on every request. */
export function embedderOf(config: EmbeddingsConfig, secretValue: (name: string) => Promise<string>): OpenAiEmbedder {
  const secret = config.apiKeySecret;
  // The key is read from the secret store on every request: a rotated key is picked up at once.
  return new OpenAiEmbedder({ baseUrl: config.baseUrl, model: config.model, dimensions: config.dimensions, ...(secret === undefined ? {} : { apiKey: () => secretValue(secret) }) });
}

/** Runs whose later memory writes are untrusted because they read an untrusted memory hit. */
export const memoryTrustMigrations: readonly Migration[] = [
  {
    room: "memory_run_marks",
    version: 1,
    name: "create memory_run_marks",
    statements: ["CREATE TABLE memory_run_marks (run_id TEXT PRIMARY KEY, at INTEGER NOT NULL) STRICT"],
  },
];

/**
 * Whether a run's memory writes are untrusted: it, or a run above it, has received output of a
 * tool other than the first-party memory plugin's (a sub-agent's answer included), or has read
 * an untrusted memory hit (through recall or its prompt's memory zone) — else recalling tool
 * output and remembering it would launder it into a trusted note. Both facts live in the store
 * (the audit log and `memory_run_marks`), so a run resumed after a pause, here or on another
 * node, knows them as well as the process that saw the output.
 */
export class MemoryTrust {
  readonly #store: Store;
  readonly #audit: AuditLog;
  readonly #clock: Clock;
  readonly #trustedPlugin: () => string | undefined;

  /** `trustedPlugin`: the name of the memory plugin whose own output does not mark a run (the first-party one). */
  constructor(store: Store, options: { audit: AuditLog; clock: Clock; trustedPlugin: () => string | undefined }) {
    this.#store = store;
    this.#audit = options.audit;
    this.#clock = options.clock;
    this.#trustedPlugin = options.trustedPlugin;
  }

  /** Records that `runId` has read untrusted memory; durable before the caller goes on. */
  async mark(runId: string): Promise<void> {
    await this.#store.execute({ sql: "INSERT OR IGNORE INTO memory_run_marks (run_id, at) VALUES (?, ?)", args: [runId, this.#clock.now()] });
  }

  async tainted(runIds: readonly string[]): Promise<boolean> {
    if (runIds.length === 0) return false;
    const marked = await this.#store.execute({ sql: `SELECT 1 FROM memory_run_marks WHERE run_id IN (${runIds.map(() => "?").join(", ")}) LIMIT 1`, args: [...runIds] });
    if (marked.rows.length > 0) return true;
    return receivedToolOutput(this.#audit, runIds, this.#trustedPlugin());
  }
}

/** Whether any of `runIds` has an audited ToolCall outcome of a plugin other than `trustedPlugin`. */
export async function receivedToolOutput(audit: AuditLog, runIds: readonly string[], trustedPlugin: string | undefined): Promise<boolean> {
  for (const runId of runIds) {
    let cursor: string | undefined;
    do {
      const page = await audit.query({ runId, kind: "tool_call", status: ["ok", "error"], limit: 1000, ...(cursor ? { cursor } : {}) });
      if (page.records.some((r) => trustedPlugin === undefined || r.plugin !== trustedPlugin)) return true;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  return false;
}

/** Whether every layer of the run (agent, task, each ancestor) allows reading scope `agent`. */
export function layersAllowAgentRead(layers: PolicyLayers): boolean {
  const grants: Array<CapabilityGrant | undefined> = [layers.agent.grants, ...(layers.task ? [layers.task] : []), ...(layers.parents ?? []).map((p) => p.grants)];
  return grants.every((grant) => {
    const resource = grant?.memory;
    return resource !== undefined && capabilityMatches("memory", resource, { scope: "agent", access: "read" }).allow;
  });
}

/**
 * The memory zone of a run: the agent's MEMORY.md always (people wrote it), and — when every
 * layer allows reading scope `agent` — the top hits of a search with the task text over the
 * partitions the run may read.
 */
export async function runMemoryZone(
  run: { agent: { name: string }; layers: PolicyLayers },
  options: { dataDir: string; task: string | null; memory: () => Promise<MemoryStore>; markTainted: () => Promise<void> },
): Promise<string> {
  const file = await readMemoryFile(options.dataDir, run.agent.name);
  let hits: MemoryHit[] = [];
  if (options.task !== null && options.task.trim() !== "" && layersAllowAgentRead(run.layers)) {
    const chain = [...(run.layers.parents ?? []).map((p) => p.name).reverse(), run.agent.name];
    const binding = agentMemoryBinding(chain);
    const memory = await options.memory();
    const search = { k: ZONE_HITS, partitions: binding.readable };
    // An embeddings endpoint that is down costs the zone its vector half, not the run.
    hits = memory.hasEmbedder
      ? await memory.search(binding.owner, options.task, { ...search, mode: "hybrid" }).catch(() => memory.search(binding.owner, options.task!, { ...search, mode: "keyword" }))
      : await memory.search(binding.owner, options.task, { ...search, mode: "keyword" });
  }
  // The model reads these hits: an untrusted one marks the run, as a recalled one would.
  if (hits.some((h) => h.untrusted)) await options.markTainted();
  return memoryZone(file, hits);
}
