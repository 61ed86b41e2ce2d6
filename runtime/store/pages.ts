import { StoreError } from "./errors.js";
import type { Row, SqlValue, Statement, Store } from "./types.js";

export interface PageQuery {
  /**
   * The statement for one page: rows after `after` (null: from the start) in key order, at most
   * `limit` of them, e.g. `SELECT … WHERE k > ? ORDER BY k LIMIT ?`.
   */
  page(after: SqlValue | null, limit: number): Statement;
  /** The key of a row (the column the page statement orders by; unique). */
  key(row: Row): SqlValue;
  /** Rows per page at first; default 200. */
  readonly pageSize?: number;
}

/**
 * Every row a query matches, read a page at a time so no one statement returns more than the
 * store's bound (`MAX_STATEMENT_BYTES`): a page that would is read again with half the rows.
 */
export async function* pagedRows(store: Pick<Store, "execute">, query: PageQuery): AsyncGenerator<Row> {
  let limit = query.pageSize ?? 200;
  let after: SqlValue | null = null;
  for (;;) {
    let rows: readonly Row[];
    try {
      rows = (await store.execute(query.page(after, limit))).rows;
    } catch (error) {
      if (error instanceof StoreError && error.code === "store_too_large" && limit > 1) {
        limit = Math.max(1, Math.floor(limit / 2));
        continue;
      }
      throw error;
    }
    for (const row of rows) yield row;
    if (rows.length < limit) return;
    after = query.key(rows[rows.length - 1] as Row);
  }
}

/** `pagedRows` collected. */
export async function allRows(store: Pick<Store, "execute">, query: PageQuery): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const row of pagedRows(store, query)) rows.push(row);
  return rows;
}

/**
 * One page of at most `limit` rows, read with fewer when that many would be more than one
 * statement may return (large rows): `used` is the limit the rows were read with, so a caller
 * that asks one row more than it shows can still tell whether another page exists.
 */
export async function boundedPage(store: Pick<Store, "execute">, page: (limit: number) => Statement, limit: number): Promise<{ rows: readonly Row[]; used: number }> {
  for (let used = limit; ; used = Math.max(1, Math.floor(used / 2))) {
    try {
      return { rows: (await store.execute(page(used))).rows, used };
    } catch (error) {
      if (!(error instanceof StoreError && error.code === "store_too_large" && used > 1)) throw error;
    }
  }
}
