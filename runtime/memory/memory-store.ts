import { randomUUID } from "node:crypto";
import { InvalidInputError } from "../errors.js";
import { applyMigrations, systemClock } from "../store/index.js";
import type { Clock, Statement, Store } from "../store/index.js";
import { chunkMarkdown } from "./chunk.js";
import type { Chunk, ChunkOptions } from "./chunk.js";
import type { Embedder } from "./embedder.js";
import { MemoryError } from "./errors.js";
import { keywordSearch } from "./keyword-search.js";
import { memoryMigrations, vectorMigrations, vectorTable } from "./migrations.js";
import { fuseRanks, HIT_COLUMNS, scopeFilter, toHit, vectorBytes } from "./search-sql.js";
import type { EpisodeInput, MemoryHit, SearchOptions, WriteOptions, WrittenEpisode } from "./types.js";

export interface MemoryStoreOptions {
  clock?: Clock;
  /** Without one, keyword search only; vector and hybrid search fail `memory_no_embedder`. */
  embedder?: Embedder;
  chunking?: ChunkOptions;
  /** How many matching chunks a keyword search scores at most, roughly (see `selectiveTerms`). Default 1000. */
  keywordRowBudget?: number;
}

const MAX_K = 100;
const SOURCES = new Set(["person", "model", "tool"]);

/**
 * Episodes per agent in libSQL: chunked by Markdown heading, indexed for keyword search (FTS5,
 * bm25) always and for vector search (F32_BLOB + libsql_vector_idx + vector_top_k) when an
 * embedder is configured. Open it with `MemoryStore.open` (applies the migrations).
 */
export class MemoryStore {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #embedder: Embedder | undefined;
  readonly #chunking: ChunkOptions;
  readonly #keywordRowBudget: number;

  private constructor(store: Store, options: MemoryStoreOptions) {
    this.#store = store;
    this.#clock = options.clock ?? systemClock;
    this.#embedder = options.embedder;
    this.#chunking = options.chunking ?? {};
    this.#keywordRowBudget = options.keywordRowBudget ?? 1000;
  }

  static async open(store: Store, options: MemoryStoreOptions = {}): Promise<MemoryStore> {
    const clock = options.clock ?? systemClock;
    await applyMigrations(store, memoryMigrations, { clock });
    if (options.embedder !== undefined) await applyMigrations(store, vectorMigrations(options.embedder.dimensions), { clock });
    return new MemoryStore(store, options);
  }

  get hasEmbedder(): boolean {
    return this.#embedder !== undefined;
  }

  async write(agent: string, episode: EpisodeInput, options: WriteOptions = {}): Promise<WrittenEpisode> {
    const [written] = await this.writeMany(agent, [{ episode, options }]);
    return written!;
  }

  /** Several episodes in one transaction, their chunks embedded in one pass before it opens. */
  async writeMany(agent: string, items: readonly { episode: EpisodeInput; options?: WriteOptions }[]): Promise<WrittenEpisode[]> {
    checkName(agent, "agent");
    const at = this.#clock.now();
    const prepared = items.map(({ episode, options = {} }) => this.#prepare(agent, episode, options));
    const vectors = await this.#embedChunks(prepared.flatMap((p) => p.chunks));
    const statements: Statement[] = [];
    let v = 0;
    for (const p of prepared) {
      statements.push(...this.#episodeStatements(agent, p, at));
      for (const [seq] of p.chunks.entries()) {
        const vector = vectors?.[v++];
        if (vector !== undefined) {
          statements.push({
            sql: `INSERT INTO ${vectorTable(this.#embedder!.dimensions)} (chunk_id, embedding) SELECT id, ? FROM memory_chunks WHERE episode_id = ? AND seq = ?`,
            args: [vectorBytes(vector), p.id, seq],
          });
        }
      }
    }
    await this.#store.batch(statements);
    return prepared.map((p) => ({ id: p.id, chunks: p.chunks.length }));
  }

  /** Removes an episode, its chunks, their keyword rows and vectors. Returns whether it existed. */
  async forget(agent: string, episodeId: string): Promise<boolean> {
    const results = await this.#store.batch([
      { sql: "DELETE FROM memory_fts WHERE rowid IN (SELECT id FROM memory_chunks WHERE episode_id = ? AND agent = ?)", args: [episodeId, agent] },
      ...(this.#embedder === undefined
        ? []
        : [{ sql: `DELETE FROM ${vectorTable(this.#embedder.dimensions)} WHERE chunk_id IN (SELECT id FROM memory_chunks WHERE episode_id = ? AND agent = ?)`, args: [episodeId, agent] }]),
      { sql: "DELETE FROM memory_chunks WHERE episode_id = ? AND agent = ?", args: [episodeId, agent] },
      { sql: "DELETE FROM memory_episodes WHERE id = ? AND agent = ?", args: [episodeId, agent] },
    ]);
    return (results[results.length - 1]?.rowsAffected ?? 0) > 0;
  }

  /** The partitions that hold episodes of `agent` (its own, its sub-agents'), sorted. */
  async partitions(agent: string): Promise<string[]> {
    const result = await this.#store.execute({ sql: "SELECT DISTINCT partition FROM memory_episodes WHERE agent = ? ORDER BY partition", args: [agent] });
    return result.rows.map((row) => String(row.partition));
  }

  async search(agent: string, query: string, options: SearchOptions = {}): Promise<MemoryHit[]> {
    const k = options.k ?? 5;
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw new InvalidInputError(`memory search k: ${k} must be an integer from 1 to ${MAX_K}`, { field: "k" });
    const partitions = options.partitions ?? [agent];
    if (partitions.length === 0) return [];
    const mode = options.mode ?? "keyword";
    if (mode === "keyword") return this.#keyword(agent, query, { k, partitions });
    if (mode === "vector") return this.#vector(agent, query, { k, partitions });
    const [byWords, byMeaning] = await Promise.all([
      this.#keyword(agent, query, { k: k * 4, partitions }),
      this.#vector(agent, query, { k: k * 4, partitions }),
    ]);
    return fuseRanks([byWords, byMeaning], k);
  }

  #keyword(agent: string, query: string, o: { k: number; partitions: readonly string[] }): Promise<MemoryHit[]> {
    return keywordSearch(this.#store, query, { agent, partitions: o.partitions, k: o.k, rowBudget: this.#keywordRowBudget });
  }

  async #vector(agent: string, query: string, o: { k: number; partitions: readonly string[] }): Promise<MemoryHit[]> {
    if (this.#embedder === undefined) {
      throw new MemoryError("memory_no_embedder", "memory search: vector and hybrid search need an embedding provider; configure one or search by keyword");
    }
    const [vector] = await this.#embedder.embed([query]);
    const bytes = vectorBytes(vector!);
    const table = vectorTable(this.#embedder.dimensions);
    const scope = scopeFilter(agent, o.partitions);
    // The index knows nothing of agents and partitions: ask it for more than k and filter; when
    // the filter leaves fewer than k from a full answer, widen, then fall back to an exact scan.
    for (let candidates = Math.max(o.k * 8, 64); candidates <= 4096; candidates *= 4) {
      const result = await this.#store.execute({
        sql: `SELECT ${HIT_COLUMNS}, vector_distance_cos(v.embedding, ?) AS distance
          FROM vector_top_k('${table}_idx', ?, ?) t JOIN ${table} v ON v.chunk_id = t.id
          JOIN memory_chunks c ON c.id = t.id JOIN memory_episodes e ON e.id = c.episode_id
          WHERE ${scope.sql} ORDER BY distance LIMIT ?`,
        args: [bytes, bytes, candidates, ...scope.args, o.k],
      });
      if (result.rows.length >= o.k || !(await this.#hasMore(table, candidates))) return result.rows.map((row) => toHit(row, 1 - Number(row.distance)));
    }
    const exact = await this.#store.execute({
      sql: `SELECT ${HIT_COLUMNS}, vector_distance_cos(v.embedding, ?) AS distance
        FROM memory_chunks c JOIN ${table} v ON v.chunk_id = c.id JOIN memory_episodes e ON e.id = c.episode_id
        WHERE ${scope.sql} ORDER BY distance LIMIT ?`,
      args: [bytes, ...scope.args, o.k],
    });
    return exact.rows.map((row) => toHit(row, 1 - Number(row.distance)));
  }

  async #hasMore(table: string, candidates: number): Promise<boolean> {
    const result = await this.#store.execute({ sql: `SELECT count(*) > ? AS more FROM (SELECT 1 FROM ${table} LIMIT ?)`, args: [candidates, candidates + 1] });
    return Number(result.rows[0]?.more) === 1;
  }

  #prepare(agent: string, episode: EpisodeInput, options: WriteOptions): Prepared {
    if (!SOURCES.has(episode.source)) throw new InvalidInputError(`memory episode source: "${String(episode.source)}" must be person, model or tool`, { field: "source" });
    if (typeof episode.text !== "string" || episode.text.trim() === "") throw new InvalidInputError("memory episode text: must not be empty", { field: "text" });
    const partition = options.partition ?? agent;
    checkName(partition, "partition");
    const chunks = chunkMarkdown(episode.text, this.#chunking);
    return {
      id: options.id ?? randomUUID(),
      partition,
      source: episode.source,
      untrusted: episode.source === "tool" || options.untrusted === true,
      title: episode.title ?? defaultTitle(episode.text, chunks),
      text: episode.text,
      chunks,
    };
  }

  #episodeStatements(agent: string, p: Prepared, at: number): Statement[] {
    const out: Statement[] = [
      {
        sql: "INSERT INTO memory_episodes (id, agent, partition, source, untrusted, title, text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        args: [p.id, agent, p.partition, p.source, p.untrusted ? 1 : 0, p.title, p.text, at],
      },
    ];
    for (const [seq, chunk] of p.chunks.entries()) {
      out.push(
        {
          sql: "INSERT INTO memory_chunks (episode_id, agent, partition, seq, heading_path, text) VALUES (?, ?, ?, ?, ?, ?)",
          args: [p.id, agent, p.partition, seq, JSON.stringify(chunk.headingPath), chunk.text],
        },
        {
          sql: "INSERT INTO memory_fts (rowid, heading, text) SELECT id, ?, text FROM memory_chunks WHERE episode_id = ? AND seq = ?",
          args: [[p.title, ...chunk.headingPath].join(" / "), p.id, seq],
        },
      );
    }
    return out;
  }

  async #embedChunks(chunks: readonly Chunk[]): Promise<Float32Array[] | undefined> {
    if (this.#embedder === undefined || chunks.length === 0) return undefined;
    const vectors = await this.#embedder.embed(chunks.map((c) => [...c.headingPath, c.text].join("\n")));
    if (vectors.length !== chunks.length || vectors.some((v) => v.length !== this.#embedder!.dimensions)) {
      throw new MemoryError("memory_embedding_failed", `memory write: the embedder returned ${vectors.length} vectors for ${chunks.length} chunks or a wrong dimension`);
    }
    return vectors;
  }
}

interface Prepared {
  id: string;
  partition: string;
  source: EpisodeInput["source"];
  untrusted: boolean;
  title: string;
  text: string;
  chunks: Chunk[];
}

function checkName(value: string, field: string): void {
  if (typeof value !== "string" || value.length === 0 || value.length > 200) {
    throw new InvalidInputError(`memory ${field}: must be a non-empty string of at most 200 characters`, { field });
  }
}

function defaultTitle(text: string, chunks: readonly Chunk[]): string {
  const heading = chunks.find((c) => c.headingPath.length > 0)?.headingPath[0];
  return (heading ?? text.trim().split("\n")[0] ?? "").slice(0, 80);
}
