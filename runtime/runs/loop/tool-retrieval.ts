/**
 * Tool retrieval: an agent with many tools is shown, each Step, the ones most relevant to the
 * conversation so far, ranked by keyword (FTS5 bm25 over each tool's name and description, in
 * the store) and, when an embeddings endpoint is configured, by meaning (cosine over the
 * descriptions' vectors, kept in the store), fused by reciprocal rank. The rest stay reachable
 * through the `tools.search` meta-tool. Only the run's own tools are ever ranked: the run's tool
 * list is already what the agent is granted, so retrieval can narrow it, never widen it.
 */
import { createHash } from "node:crypto";
import type { AgentManifest } from "../../agents/index.js";
import type { Embedder } from "../../memory/embedder.js";
import { ftsQuery } from "../../memory/fts-query.js";
import type { Migration, Store } from "../../store/index.js";
import type { ToolInfo } from "../types.js";

/** The meta-tool's name; offered only to an agent with `tool_retrieval` whose tools hold no such name. */
export const TOOL_SEARCH = "tools.search";
/** Words of the conversation a Step's ranking looks at. */
const QUERY_CHARS = 4000;
/** Results of one `tools.search` call at the most. */
export const TOOL_SEARCH_MAX = 20;

export const toolRetrievalMigrations: readonly Migration[] = [
  {
    room: "tool_retrieval",
    version: 1,
    name: "tool documents, their keyword index and vectors",
    statements: [
      // One row per (tool, description): a plugin upgrade that rewords a tool adds a row.
      "CREATE TABLE tool_docs (id INTEGER PRIMARY KEY, digest TEXT NOT NULL UNIQUE, name TEXT NOT NULL) STRICT",
      "CREATE VIRTUAL TABLE tool_docs_fts USING fts5 (name, description, tokenize = 'porter unicode61')",
      "CREATE TABLE tool_vectors (digest TEXT NOT NULL, model TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (digest, model)) STRICT",
    ],
  },
];

/** Whether the meta-tool can be offered: no tool of the run already has its name. */
export function offersToolSearch(tools: readonly ToolInfo[]): boolean {
  return !tools.some((t) => t.qualifiedName === TOOL_SEARCH);
}

/** Tools pinned in a run's state at the most (the oldest go first). */
const MAX_PINNED = 64;

/** Pins `names` as the most recent in `pinned` (each once). */
export function pinTools(pinned: string[], names: readonly string[]): void {
  for (const name of names) {
    const at = pinned.indexOf(name);
    if (at >= 0) pinned.splice(at, 1);
    pinned.push(name);
  }
  if (pinned.length > MAX_PINNED) pinned.splice(0, pinned.length - MAX_PINNED);
}

export type ToolRetrievalSettings = NonNullable<AgentManifest["tool_retrieval"]>;

/** The meta-tool as the model sees it. */
export const TOOL_SEARCH_SPEC = {
  name: TOOL_SEARCH,
  description:
    "Search this agent's other tools by what they do. Only some tools are shown at a time; call this with a few words to find one, and the tools found are offered from the next step on.",
  input_schema: {
    type: "object",
    properties: {
      query: { type: "string", minLength: 1, maxLength: 500, description: "what the tool should do, in a few words" },
      limit: { type: "integer", minimum: 1, maximum: TOOL_SEARCH_MAX, description: `how many tools to return (default 8, at most ${TOOL_SEARCH_MAX})` },
    },
    required: ["query"],
    additionalProperties: false,
  },
} as const;

export interface ToolRetrievalOptions {
  /** The embeddings endpoint, when configured (`memory.embeddings`); keyword ranking only without. */
  embedder?: { model: string; get: () => Embedder };
}

export class ToolRetrieval {
  readonly #store: Store;
  readonly #options: ToolRetrievalOptions;
  /** digest → doc id, for documents known to be in the store. */
  readonly #known = new Map<string, number>();
  /** `${model}\0${digest}` → vector, for vectors known to be in the store. */
  readonly #vectors = new Map<string, Float32Array>();

  constructor(store: Store, options: ToolRetrievalOptions = {}) {
    this.#store = store;
    this.#options = options;
  }

  /**
   * `tools` ordered by relevance to `query`: keyword hits (and vector hits) first, by fused rank,
   * then the rest in their own order. An embeddings endpoint that fails costs the vector half only.
   */
  async rank(tools: readonly ToolInfo[], query: string): Promise<ToolInfo[]> {
    if (tools.length === 0) return [];
    const ids = await this.#index(tools);
    const lists: ToolInfo[][] = [await this.#keyword(tools, ids, query)];
    const vector = await this.#vector(tools, query).catch(() => undefined);
    if (vector !== undefined) lists.push(vector);
    const score = new Map<ToolInfo, number>();
    for (const list of lists) list.forEach((tool, rank) => score.set(tool, (score.get(tool) ?? 0) + 1 / (60 + rank + 1)));
    const hits = [...score.keys()].sort((a, b) => score.get(b)! - score.get(a)!);
    return [...hits, ...tools.filter((t) => !score.has(t))];
  }

  /**
   * The tools shown in one Step: `always` (those the run has), then `pinned` (tools found by
   * `tools.search` or called earlier in the run, most recent first), then the best ranked, up to
   * `max_tools` in all.
   */
  async select(tools: readonly ToolInfo[], settings: ToolRetrievalSettings, context: { query: string; pinned: readonly string[] }): Promise<ToolInfo[]> {
    if (tools.length <= settings.max_tools) return [...tools];
    const byName = new Map(tools.map((t) => [t.qualifiedName, t]));
    const shown = new Map<string, ToolInfo>();
    const add = (tool: ToolInfo | undefined) => {
      if (tool !== undefined && shown.size < settings.max_tools) shown.set(tool.qualifiedName, tool);
    };
    for (const name of settings.always) add(byName.get(name));
    for (const name of [...context.pinned].reverse()) add(byName.get(name));
    if (shown.size < settings.max_tools) for (const tool of await this.rank(tools, context.query)) add(tool);
    // In the run's own order: a stable list from one Step to the next.
    return tools.filter((t) => shown.has(t.qualifiedName));
  }

  async #index(tools: readonly ToolInfo[]): Promise<Map<ToolInfo, number>> {
    const ids = new Map<ToolInfo, number>();
    const missing: ToolInfo[] = [];
    for (const tool of tools) {
      const id = this.#known.get(digestOf(tool));
      if (id === undefined) missing.push(tool);
      else ids.set(tool, id);
    }
    if (missing.length > 0) {
      const statements = missing.flatMap((tool) => {
        const digest = digestOf(tool);
        return [
          { sql: "INSERT INTO tool_docs (digest, name) VALUES (?, ?) ON CONFLICT (digest) DO NOTHING", args: [digest, tool.qualifiedName] },
          {
            sql: "INSERT INTO tool_docs_fts (rowid, name, description) SELECT id, ?, ? FROM tool_docs WHERE digest = ? AND NOT EXISTS (SELECT 1 FROM tool_docs_fts WHERE rowid = tool_docs.id)",
            args: [nameWords(tool.qualifiedName), tool.description, digest],
          },
        ];
      });
      await this.#store.batch(statements, { mode: "write" });
      const digests = missing.map(digestOf);
      const found = await this.#store.execute({ sql: `SELECT id, digest FROM tool_docs WHERE digest IN (${digests.map(() => "?").join(", ")})`, args: digests });
      for (const row of found.rows) this.#known.set(String(row.digest), Number(row.id));
      for (const tool of missing) {
        const id = this.#known.get(digestOf(tool));
        if (id !== undefined) ids.set(tool, id);
      }
    }
    return ids;
  }

  async #keyword(tools: readonly ToolInfo[], ids: Map<ToolInfo, number>, query: string): Promise<ToolInfo[]> {
    const match = ftsQuery(query.slice(-QUERY_CHARS));
    if (match === undefined) return [];
    const byId = new Map<number, ToolInfo>();
    for (const tool of tools) {
      const id = ids.get(tool);
      if (id !== undefined) byId.set(id, tool);
    }
    const wanted = [...byId.keys()];
    const found = await this.#store.execute({
      // The tool's name weighs twice its description.
      sql: `SELECT rowid AS id FROM tool_docs_fts WHERE tool_docs_fts MATCH ? AND rowid IN (${wanted.map(() => "?").join(", ")}) ORDER BY bm25(tool_docs_fts, 2.0, 1.0) LIMIT ?`,
      args: [match, ...wanted, wanted.length],
    });
    return found.rows.map((row) => byId.get(Number(row.id))).filter((t): t is ToolInfo => t !== undefined);
  }

  async #vector(tools: readonly ToolInfo[], query: string): Promise<ToolInfo[] | undefined> {
    const source = this.#options.embedder;
    if (source === undefined || query.trim() === "") return undefined;
    const embedder = source.get();
    const key = (tool: ToolInfo) => `${source.model}\0${digestOf(tool)}`;
    const unknown = tools.filter((t) => !this.#vectors.has(key(t)));
    if (unknown.length > 0) {
      const digests = unknown.map(digestOf);
      const stored = await this.#store.execute({
        sql: `SELECT digest, vector FROM tool_vectors WHERE model = ? AND digest IN (${digests.map(() => "?").join(", ")})`,
        args: [source.model, ...digests],
      });
      for (const row of stored.rows) {
        const bytes = row.vector as Uint8Array;
        const vector = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
        if (vector.length === embedder.dimensions) this.#vectors.set(`${source.model}\0${String(row.digest)}`, vector);
      }
      const toEmbed = unknown.filter((t) => !this.#vectors.has(key(t)));
      if (toEmbed.length > 0) {
        const made = await embedder.embed(toEmbed.map((t) => `${nameWords(t.qualifiedName)}: ${t.description}`));
        await this.#store.batch(
          toEmbed.map((tool, i) => ({
            sql: "INSERT INTO tool_vectors (digest, model, vector) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            args: [digestOf(tool), source.model, new Uint8Array(made[i]!.buffer, made[i]!.byteOffset, made[i]!.byteLength)],
          })),
          { mode: "write" },
        );
        toEmbed.forEach((tool, i) => this.#vectors.set(key(tool), made[i]!));
      }
    }
    const [asked] = await embedder.embed([query.slice(-QUERY_CHARS)]);
    if (asked === undefined) return undefined;
    return tools
      .map((tool) => ({ tool, similarity: cosine(asked, this.#vectors.get(key(tool))!) }))
      .sort((a, b) => b.similarity - a.similarity)
      .map((r) => r.tool);
  }
}

/**
 * The text a Step's ranking looks at: the task, then the conversation's latest text (the last
 * user turn and the model's last words), tool results' text included, its end kept.
 */
export function retrievalQuery(task: string, messages: ReadonlyArray<{ role: string; content: ReadonlyArray<{ type: string; text?: string; content?: unknown }> }>): string {
  const recent = messages.slice(-2).flatMap((m) =>
    m.content.map((block) => {
      if (block.type === "text" && typeof block.text === "string") return block.text;
      if (block.type === "tool_result") return typeof block.content === "string" ? block.content : JSON.stringify(block.content ?? "");
      return "";
    }),
  );
  const text = `${task}\n${recent.join("\n")}`;
  return text.length > QUERY_CHARS ? `${task.slice(0, QUERY_CHARS / 2)}\n${text.slice(-QUERY_CHARS / 2)}` : text;
}

function digestOf(tool: ToolInfo): string {
  return createHash("sha256").update(`${tool.qualifiedName}\n${tool.description}`).digest("hex");
}

/** `files.read_file` → `files read file`: the name's words for the keyword index. */
function nameWords(name: string): string {
  return name.replace(/[._-]+/g, " ");
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
