import type { Store } from "../store/index.js";
import { ftsTerms } from "./fts-query.js";
import { HIT_COLUMNS, scopeFilter, toHit } from "./search-sql.js";
import type { MemoryHit } from "./types.js";

/** How many of the best-scored rows are asked for per hit wanted, before the agent's scope filters them. */
const CANDIDATES_PER_HIT = 8;
/** Past this many candidates the scope filter is left to the database (one joined query). */
const MAX_CANDIDATES = 4096;
/** Each counting pass stops at this many times the previous one's cap. */
const CAP_GROWTH = 4;

export interface KeywordSearch {
  readonly agent: string;
  readonly partitions: readonly string[];
  readonly k: number;
  /** How many matching rows are scored at most, roughly (see `selectiveTerms`). */
  readonly rowBudget: number;
}

/**
 * FTS5 bm25 over the query's words, heading words weighing twice body words (a section's heading
 * names what it is about). The FTS table holds every agent's chunks and knows nothing of scopes,
 * so the best-scored rows are taken from it alone and then joined and filtered: joining every
 * matching row first costs about four times as much per row as scoring it. When the scope leaves
 * fewer than k of a full answer, more are asked for, and past `MAX_CANDIDATES` the database
 * scores, joins and filters in one query (the answer every path gives).
 */
export async function keywordSearch(store: Store, query: string, search: KeywordSearch): Promise<MemoryHit[]> {
  const terms = await selectiveTerms(store, ftsTerms(query), search.rowBudget);
  if (terms.length === 0) return [];
  const match = terms.join(" OR ");
  const scope = scopeFilter(search.agent, search.partitions);
  for (let limit = Math.max(search.k * CANDIDATES_PER_HIT, 64); limit <= MAX_CANDIDATES; limit *= 4) {
    const ranked = await store.execute({
      sql: "SELECT rowid AS id, bm25(memory_fts, 2.0, 1.0) AS rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT ?",
      args: [match, limit],
    });
    if (ranked.rows.length === 0) return [];
    const rank = new Map(ranked.rows.map((row) => [Number(row.id), Number(row.rank)]));
    const hits = await store.execute({
      sql: `SELECT ${HIT_COLUMNS} FROM memory_chunks c JOIN memory_episodes e ON e.id = c.episode_id
        WHERE c.id IN (SELECT value FROM json_each(?)) AND ${scope.sql}`,
      args: [JSON.stringify([...rank.keys()]), ...scope.args],
    });
    if (hits.rows.length >= search.k || ranked.rows.length < limit) {
      return hits.rows
        .map((row) => ({ row, rank: rank.get(Number(row.chunk_id))! }))
        .sort((a, b) => a.rank - b.rank || Number(a.row.chunk_id) - Number(b.row.chunk_id))
        .slice(0, search.k)
        .map(({ row, rank }) => toHit(row, -rank));
    }
  }
  const result = await store.execute({
    sql: `SELECT ${HIT_COLUMNS}, bm25(memory_fts, 2.0, 1.0) AS rank
      FROM memory_fts JOIN memory_chunks c ON c.id = memory_fts.rowid JOIN memory_episodes e ON e.id = c.episode_id
      WHERE memory_fts MATCH ? AND ${scope.sql} ORDER BY rank, c.id LIMIT ?`,
    args: [match, ...scope.args, search.k],
  });
  return result.rows.map((row) => toHit(row, -Number(row.rank)));
}

/**
 * bm25 costs about a µs for every matching row (FTS5 reads each row's position list), so an OR
 * of common words over a large store is slow. Keep the rarest terms while their rows together
 * stay within the budget (always the rarest one). A dropped common word would have added little
 * to any score anyway (its IDF is low) — the WAND idea, approximated up front.
 *
 * Counting a term's rows reads its whole row list, so counts are capped: a first pass counts to
 * just past the budget, and while every term still reaches the cap, the next pass counts them
 * to a cap `CAP_GROWTH` times higher, the fourth to the end. Once a term that is in any row
 * counts below the cap, the choice is the one exact counts make: that term is the rarest, and a
 * capped term (more than the budget) can never join it. Common words are read only as far as
 * that needs.
 */
export async function selectiveTerms(store: Store, terms: readonly string[], budget: number): Promise<string[]> {
  if (terms.length <= 1) return [...terms];
  const counts = new Map<string, number>();
  const caps = [budget + 1, (budget + 1) * CAP_GROWTH, (budget + 1) * CAP_GROWTH ** 2, undefined];
  for (const cap of caps) {
    const counted = await countRows(store, terms, cap);
    terms.forEach((term, i) => counts.set(term, counted[i]!));
    // Exact once a term that is in some row is below the cap (or none reached it).
    if (cap === undefined || counted.every((rows) => rows < cap) || counted.some((rows) => rows > 0 && rows < cap)) break;
  }
  return chooseTerms(terms.map((term) => ({ term, rows: counts.get(term) ?? 0 })), budget);
}

/** The rarest terms (by rows) while their rows together stay within `budget`; the rarest one always; none in no row. */
export function chooseTerms(counted: readonly { term: string; rows: number }[], budget: number): string[] {
  const ranked = counted.filter((t) => t.rows > 0).sort((a, b) => a.rows - b.rows);
  const kept: string[] = [];
  let rows = 0;
  for (const t of ranked) {
    if (kept.length > 0 && rows + t.rows > budget) break;
    kept.push(t.term);
    rows += t.rows;
  }
  return kept;
}

/** Each term's matching rows, counted up to `cap` (all of them without one), in one statement. */
async function countRows(store: Store, terms: readonly string[], cap: number | undefined): Promise<number[]> {
  const limit = cap === undefined ? "" : ` LIMIT ${cap}`;
  const result = await store.execute({
    sql: `SELECT ${terms.map((_, i) => `(SELECT count(*) FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ?${limit})) AS t${i}`).join(", ")}`,
    args: [...terms],
  });
  const row = result.rows[0] ?? {};
  return terms.map((_, i) => Number(row[`t${i}`] ?? 0));
}
