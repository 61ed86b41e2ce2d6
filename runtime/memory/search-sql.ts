import type { Row, SqlValue } from "../store/index.js";
import type { EpisodeSource, MemoryHit } from "./types.js";

/** The hit columns, read from `c` (memory_chunks) and `e` (memory_episodes). */
export const HIT_COLUMNS =
  "c.id AS chunk_id, c.episode_id, c.seq, c.partition, c.heading_path, c.text, e.source, e.untrusted, e.title, e.created_at";

/** `c.agent = ? AND c.partition IN (?, …)` and its arguments. */
export function scopeFilter(agent: string, partitions: readonly string[]): { sql: string; args: SqlValue[] } {
  return { sql: `c.agent = ? AND c.partition IN (${partitions.map(() => "?").join(", ")})`, args: [agent, ...partitions] };
}

export function toHit(row: Row, score: number): MemoryHit {
  return {
    episodeId: String(row.episode_id),
    chunkId: Number(row.chunk_id),
    seq: Number(row.seq),
    partition: String(row.partition),
    source: String(row.source) as EpisodeSource,
    untrusted: Number(row.untrusted) === 1,
    title: String(row.title),
    headingPath: JSON.parse(String(row.heading_path)) as string[],
    text: String(row.text),
    score,
    createdAt: Number(row.created_at),
  };
}

/** The bytes libSQL stores in an F32_BLOB: little-endian float32s (what a Float32Array holds on x86/ARM). */
export function vectorBytes(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** Reciprocal rank fusion (Cormack et al., SIGIR 2009), k = 60: rank-based, so bm25 and cosine need no common scale. */
export function fuseRanks(lists: readonly MemoryHit[][], k: number): MemoryHit[] {
  const fused = new Map<number, MemoryHit>();
  for (const list of lists) {
    list.forEach((hit, rank) => {
      const seen = fused.get(hit.chunkId);
      const add = 1 / (60 + rank + 1);
      fused.set(hit.chunkId, { ...(seen ?? hit), score: (seen?.score ?? 0) + add });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, k);
}
