import { StoreError, type Row, type Store } from "../store/index.js";
import { BODY_COLUMNS, SELECT_COLUMNS } from "./schema.js";

/**
 * How `verify()` reads the chain: pages of what it needs, not whole rows.
 *
 * In a STRICT table every hashed column holds TEXT, INTEGER or NULL only, and for those SQLite's
 * `json_object` writes exactly what `bodyText` writes (keys in the order given, no whitespace,
 * strings escaped as JSON.stringify escapes them, integers as digits), so the database builds
 * each record's canonical text itself and hands over one string instead of 31 values: the walk
 * then hashes that. A text is only ever trusted to *match*: JSON text decodes to one set of
 * values, so a text equal to what the writer hashed means the stored values are the written
 * ones. A record whose text does not match is read again whole and checked the long way
 * (`bodyText` of its stored values) before it is called altered, so a difference between the
 * two writers could only cost time, never raise a false alarm or hide a change.
 */
const SORTED_COLUMNS = [...BODY_COLUMNS].sort();
const BODY_JSON = `json_object(${SORTED_COLUMNS.map((column) => `'${column}', ${column}`).join(", ")})`;
export const FAST_COLUMNS = `seq, prev_hash, hash, status, intent_seq, ${BODY_JSON} AS body_text`;
export const FULL_COLUMNS = SELECT_COLUMNS;

/** Rows per page: large enough that a page's round trip is noise, small enough to stay bounded. */
const PAGE = 1000;

/**
 * Whether the fast path's premise holds: the table is STRICT and every hashed column is declared
 * TEXT or INTEGER (a STRICT table may also have ANY columns, which hold BLOBs and REALs). Unknown
 * counts as no.
 */
export async function strictTable(store: Store): Promise<boolean> {
  try {
    const table = await store.execute("SELECT strict FROM pragma_table_list WHERE name = 'audit_records'");
    if (table.rows.length !== 1 || Number(table.rows[0]!.strict) !== 1) return false;
    const columns = await store.execute("SELECT name, type FROM pragma_table_info('audit_records')");
    const types = new Map(columns.rows.map((row) => [String(row.name), String(row.type).toUpperCase()]));
    return BODY_COLUMNS.every((column) => types.get(column) === "TEXT" || types.get(column) === "INTEGER");
  } catch {
    return false;
  }
}

/**
 * Every record in seq order, `columns` of each, one page at a time. A page larger than a
 * statement may return (records with large arguments) is read again in halves.
 */
export async function* chainPages(store: Store, columns: string): AsyncGenerator<readonly Row[]> {
  let limit = PAGE;
  for (let after = 0; ; ) {
    let rows: readonly Row[];
    try {
      rows = (await store.execute({ sql: `SELECT ${columns} FROM audit_records WHERE seq > ? ORDER BY seq LIMIT ?`, args: [after, limit] })).rows;
    } catch (error) {
      if (error instanceof StoreError && error.code === "store_too_large" && limit > 1) {
        limit = Math.max(1, limit >> 1);
        continue;
      }
      throw error;
    }
    if (rows.length > 0) yield rows;
    if (rows.length < limit) return;
    after = Number(rows[rows.length - 1]!.seq);
    limit = Math.min(PAGE, limit * 2);
  }
}

/** Whole rows by seq, one at a time (a row may be as large as a statement may return). */
export async function rowsBySeq(store: Store, seqs: readonly number[]): Promise<Map<number, Row>> {
  const found = new Map<number, Row>();
  for (const seq of seqs) {
    const row = (await store.execute({ sql: `SELECT ${FULL_COLUMNS} FROM audit_records WHERE seq = ?`, args: [seq] })).rows[0];
    if (row !== undefined) found.set(seq, row);
  }
  return found;
}
