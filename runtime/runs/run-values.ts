/**
 * The large values of a run: its plan's ToolCall outcomes (a tool may return up to
 * `sandbox.max_result_bytes`, 4 MiB by default) and its result (a model's answer, up to
 * `model.max_response_bytes`). One statement moves at most `MAX_STATEMENT_BYTES`, so neither
 * may live whole in the run's row: each outcome is a row of `run_outcomes`, inline when it fits
 * `INLINE_BYTES`, else a summary (the outcome without its output, and the output's size) with
 * the whole outcome in `run_parts`; a result past `INLINE_BYTES` leaves a preview in
 * `runs.result` and the whole text in `run_parts`; so does a plan whose inputs are larger (a
 * ToolCall's input may be 4 MiB), its row holding the calls without their inputs. A run read alone (`RunRecords.get`) comes
 * back whole; a list of runs shows the summaries and previews, so a page of runs stays small.
 */
import { allRows, previewUtf8, readParts, utf8Parts, type Migration, type SqlValue, type Statement, type Store } from "../store/index.js";

/** The most of an outcome or a result kept in its row. */
export const INLINE_BYTES = 64 * 1024;

/** In the runs room (applied with it): outcomes and results larger than a row. */
export const runValueMigrations: readonly Migration[] = [
  {
    room: "runs",
    version: 6,
    name: "ToolCall outcomes and run results larger than a row, in parts",
    statements: [
      `CREATE TABLE run_outcomes (
        run_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        parts INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, idx)
      ) STRICT`,
      `CREATE TABLE run_parts (
        run_id TEXT NOT NULL,
        name TEXT NOT NULL,
        part INTEGER NOT NULL,
        bytes BLOB NOT NULL,
        PRIMARY KEY (run_id, name, part)
      ) STRICT`,
      "ALTER TABLE runs ADD COLUMN result_parts INTEGER NOT NULL DEFAULT 0",
      "ALTER TABLE runs ADD COLUMN plan_parts INTEGER NOT NULL DEFAULT 0",
    ],
  },
];

/** A condition (SQL and its arguments) a statement adds so that it writes only when it holds. */
export interface WriteGuard {
  readonly sql: string;
  readonly args: readonly SqlValue[];
}

/** How many outcomes run `runId` has in `run_outcomes`. */
export async function storedOutcomes(store: Pick<Store, "execute">, runId: string): Promise<number> {
  const row = (await store.execute({ sql: "SELECT count(*) AS n FROM run_outcomes WHERE run_id = ?", args: [runId] })).rows[0];
  return Number(row?.n ?? 0);
}

/**
 * The statements adding outcomes `from` on (their index in the plan) of run `runId`, each
 * written only while `guard` holds (in the same batch as the run's own update, so a fenced-off
 * node writes none of them). An outcome already stored is kept.
 */
export function outcomeStatements(runId: string, outcomes: readonly unknown[], options: { from: number; guard: WriteGuard }): Statement[] {
  const statements: Statement[] = [];
  const { guard } = options;
  for (let idx = options.from; idx < outcomes.length; idx++) {
    const whole = JSON.stringify(outcomes[idx] ?? null);
    const fits = Buffer.byteLength(whole) <= INLINE_BYTES;
    const parts = fits ? [] : utf8Parts(whole);
    statements.push({
      sql: `INSERT INTO run_outcomes (run_id, idx, outcome, parts) SELECT ?, ?, ?, ? WHERE ${guard.sql} ON CONFLICT (run_id, idx) DO NOTHING`,
      args: [runId, idx, fits ? whole : JSON.stringify(summaryOf(outcomes[idx])), parts.length, ...guard.args],
    });
    parts.forEach((bytes, part) => {
      statements.push({
        sql: `INSERT INTO run_parts (run_id, name, part, bytes) SELECT ?, ?, ?, ? WHERE ${guard.sql} ON CONFLICT (run_id, name, part) DO NOTHING`,
        args: [runId, `outcome:${idx}`, part, bytes, ...guard.args],
      });
    });
  }
  return statements;
}

/**
 * An outcome too large for its row, as a list shows it: without its output, which is
 * `outputBytes` long (read the run alone for it).
 */
function summaryOf(outcome: unknown): unknown {
  if (outcome === null || typeof outcome !== "object" || !("output" in outcome)) return outcome;
  const { output, ...rest } = outcome as Record<string, unknown>;
  return { ...rest, outputBytes: Buffer.byteLength(JSON.stringify(output ?? null)) };
}

/** The outcomes of run `runId`, whole, in order. */
export async function readOutcomes(store: Pick<Store, "execute">, runId: string): Promise<unknown[]> {
  const rows = await allRows(store, {
    page: (after, limit) => ({ sql: "SELECT idx, outcome, parts FROM run_outcomes WHERE run_id = ? AND idx > ? ORDER BY idx LIMIT ?", args: [runId, after ?? -1, limit] }),
    key: (row) => row.idx as number,
    pageSize: 16,
  });
  const outcomes: unknown[] = [];
  for (const row of rows) {
    const text = Number(row.parts) === 0 ? String(row.outcome) : await readRunPart(store, runId, `outcome:${Number(row.idx)}`);
    outcomes.push(JSON.parse(text) as unknown);
  }
  return outcomes;
}

/** The outcomes of each of `runIds` as a list shows them (summaries for the large ones). */
export async function listedOutcomes(store: Pick<Store, "execute">, runIds: readonly string[]): Promise<Map<string, unknown[]>> {
  const byRun = new Map<string, Array<{ idx: number; outcome: unknown }>>();
  if (runIds.length === 0) return new Map();
  const rows = await allRows(store, {
    page: (after, limit) => ({
      sql: `SELECT rowid AS rid, run_id, idx, outcome FROM run_outcomes WHERE run_id IN (${runIds.map(() => "?").join(", ")}) AND rowid > ? ORDER BY rowid LIMIT ?`,
      args: [...runIds, after ?? 0, limit],
    }),
    key: (row) => row.rid as number,
  });
  for (const row of rows) {
    const list = byRun.get(String(row.run_id)) ?? [];
    list.push({ idx: Number(row.idx), outcome: JSON.parse(String(row.outcome)) as unknown });
    byRun.set(String(row.run_id), list);
  }
  return new Map([...byRun].map(([id, list]) => [id, list.sort((a, b) => a.idx - b.idx).map((o) => o.outcome)]));
}

/**
 * A run's result as its row holds it (the text, or its preview when larger than `INLINE_BYTES`)
 * and the parts of the whole text (none when it fits).
 */
export function resultColumns(runId: string, result: string | undefined): { inline: string | null; parts: Uint8Array[] } {
  if (result === undefined) return { inline: null, parts: [] };
  if (Buffer.byteLength(result) <= INLINE_BYTES) return { inline: result, parts: [] };
  return { inline: previewUtf8(result, INLINE_BYTES, `GET /v1/runs/${runId} has the whole result`), parts: utf8Parts(result) };
}

/**
 * A plan as its row holds it (whole, or its calls without their inputs when larger than
 * `INLINE_BYTES`) and the parts of the whole plan (none when it fits).
 */
export function planColumns(plan: ReadonlyArray<{ name: string; input: unknown }> | null): { inline: string | null; parts: Uint8Array[] } {
  if (plan === null) return { inline: null, parts: [] };
  const whole = JSON.stringify(plan);
  if (Buffer.byteLength(whole) <= INLINE_BYTES) return { inline: whole, parts: [] };
  return { inline: JSON.stringify(plan.map((call) => ({ ...call, input: null }))), parts: utf8Parts(whole) };
}

/** The statements storing the parts of a plan, a result or another value `name` of run `runId`. */
export function partStatements(runId: string, name: string, parts: readonly Uint8Array[]): Statement[] {
  return parts.map((bytes, part) => ({ sql: "INSERT INTO run_parts (run_id, name, part, bytes) VALUES (?, ?, ?, ?)", args: [runId, name, part, bytes] }));
}

/**
 * The statements setting run `runId`'s result to `text` (its preview and parts when large),
 * replacing one stored before, each only while `guard` (a condition on `runs` of this run) holds.
 */
export function setResultStatements(runId: string, text: string, guard: WriteGuard): Statement[] {
  const { inline, parts } = resultColumns(runId, text);
  return [
    { sql: `UPDATE runs SET result = ?, result_parts = ? WHERE id = ? AND ${guard.sql}`, args: [inline, parts.length, runId, ...guard.args] },
    { sql: `DELETE FROM run_parts WHERE run_id = ? AND name = 'result' AND EXISTS (SELECT 1 FROM runs WHERE id = ? AND ${guard.sql})`, args: [runId, runId, ...guard.args] },
    ...resultPartStatements(runId, parts, { sql: `EXISTS (SELECT 1 FROM runs WHERE id = ? AND ${guard.sql})`, args: [runId, ...guard.args] }),
  ];
}

/** The statements storing a result's parts, each only while `guard` holds. */
export function resultPartStatements(runId: string, parts: readonly Uint8Array[], guard: WriteGuard): Statement[] {
  return parts.map((bytes, part) => ({
    sql: `INSERT INTO run_parts (run_id, name, part, bytes) SELECT ?, 'result', ?, ? WHERE ${guard.sql} ON CONFLICT (run_id, name, part) DO NOTHING`,
    args: [runId, part, bytes, ...guard.args],
  }));
}

/** One large value of run `runId`, read a part per statement. */
export function readRunPart(store: Pick<Store, "execute">, runId: string, name: string): Promise<string> {
  return readParts(store, (after, limit) => ({ sql: "SELECT part, bytes FROM run_parts WHERE run_id = ? AND name = ? AND part > ? ORDER BY part LIMIT ?", args: [runId, name, after, limit] }));
}
