import { StoreError } from "./errors.js";
import type { Row, SqlArgs, SqlValue, Statement } from "./types.js";

/**
 * The most one statement may bind or return, in bytes. A libSQL server caps one response (10 MB
 * by default) and sends every value through JSON, so the store holds itself to a bound well under
 * that on every driver: code that would only break on a server breaks in every test instead.
 * Large values are stored in chunks; queries that could return many rows page.
 */
export const MAX_STATEMENT_BYTES = 1 << 20;

/** Refuses a statement whose SQL and arguments together exceed the bound, before it runs. */
export function checkStatementSize(statement: Statement | string, location: string): void {
  if (typeof statement === "string") {
    if (statement.length > MAX_STATEMENT_BYTES / 4 && Buffer.byteLength(statement) > MAX_STATEMENT_BYTES) throw tooLarge("writes", Buffer.byteLength(statement), statement, location);
    return;
  }
  let size = Buffer.byteLength(statement.sql);
  if (statement.args !== undefined) size += argsSize(statement.args);
  if (size > MAX_STATEMENT_BYTES) throw tooLarge("writes", size, statement.sql, location);
}

/** The bytes a statement sends: its SQL and its arguments. */
export function statementBytes(statement: Statement | string): number {
  if (typeof statement === "string") return Buffer.byteLength(statement);
  return Buffer.byteLength(statement.sql) + (statement.args === undefined ? 0 : argsSize(statement.args));
}

/** Refuses a result larger than the bound: page the query (see `pageRows`) or read chunks. */
export function checkResultSize(rows: readonly Row[], sql: string, location: string): void {
  let size = 0;
  for (const row of rows) {
    for (const key in row) size += valueSize(row[key] as SqlValue);
    if (size > MAX_STATEMENT_BYTES) throw tooLarge("reads", size, sql, location);
  }
}

function argsSize(args: SqlArgs): number {
  let size = 0;
  const values = Array.isArray(args) ? (args as readonly SqlValue[]) : Object.values(args);
  for (const value of values) size += valueSize(value);
  return size;
}

function valueSize(value: SqlValue): number {
  if (value === null) return 1;
  if (typeof value === "string") return Buffer.byteLength(value);
  if (value instanceof Uint8Array) return value.byteLength;
  return 8;
}

function tooLarge(direction: "reads" | "writes", size: number, sql: string, location: string): StoreError {
  const shown = sql.length > 80 ? `${sql.slice(0, 77)}...` : sql;
  return new StoreError(
    "store_too_large",
    `store ${location}: a statement ${direction} ${size} bytes, more than the ${MAX_STATEMENT_BYTES} one statement may move (${JSON.stringify(shown.replace(/\s+/g, " "))}); ` +
      "store large values in chunks and page queries that can return many rows",
  );
}
