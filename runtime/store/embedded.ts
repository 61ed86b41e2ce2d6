import Database from "libsql";
import { StoreError, toStoreError } from "./errors.js";
import { ConnectionGate } from "./gate.js";
import type { BatchOptions, QueryResult, SqlExecutor, Statement, Store, StoreKind, TransactionMode } from "./types.js";
import { checkResultSize, checkStatementSize } from "./limits.js";
import { argsForLibsql, rowFrom } from "./values.js";
import { connectionHeldError } from "./deadline.js";

type Connection = Database.Database;
type Prepared = Database.Statement<unknown[]>;

const STATEMENT_CACHE_SIZE = 256;
/** Statements that may change a table's columns (see `#columns`). */
const DDL = /^\s*(ALTER|DROP|CREATE)\b/i;

const BEGIN: Record<TransactionMode, string> = {
  write: "BEGIN IMMEDIATE",
  // SQLite has no read-only BEGIN; a deferred transaction that only reads takes only read locks.
  read: "BEGIN DEFERRED",
  deferred: "BEGIN DEFERRED",
};

/**
 * The embedded driver: one synchronous libsql connection per store, with prepared statements
 * cached by SQL text. It exists beside the `@libsql/client` driver because the audit hot path
 * commits one small transaction per flush: measured on the 2-core dev box, a one-row commit
 * costs ≈ 26 µs here and ≈ 65 µs through `@libsql/client`, which re-prepares every statement
 * (BEGIN and COMMIT included) on every call.
 *
 * One connection, not a pool: calls are synchronous, so a pool would add no parallelism in one
 * process, and per-connection pragmas (synchronous, foreign_keys) hold on the only connection.
 */
export class EmbeddedStore implements Store {
  readonly kind: StoreKind;
  readonly location: string;
  /** Set by `openStore` once it has made the connection read-only. */
  readOnly = false;
  #db: Connection | null;
  #cache = new Map<string, Prepared>();
  #columnNames = new WeakMap<Prepared, readonly string[]>();
  #gate = new ConnectionGate();
  /**
   * Statements here are synchronous and a lock waits at most the busy timeout, so the one wait
   * left unbounded would be for the connection, behind a transaction whose body stalls: that
   * wait fails `store_timeout` after this long.
   */
  readonly #timeoutMs: number;

  constructor(options: { kind: "file" | "memory"; path: string; location: string; busyTimeoutMs: number; timeoutMs: number }) {
    this.kind = options.kind;
    this.location = options.location;
    this.#timeoutMs = options.timeoutMs;
    try {
      this.#db = new Database(options.path, { timeout: options.busyTimeoutMs });
    } catch (cause) {
      throw toStoreError(cause, `store ${options.location}: cannot open`);
    }
  }

  execute(statement: Statement | string): Promise<QueryResult> {
    // Fast path: nobody holds the connection, and the call is synchronous, so nothing can
    // interleave with it.
    if (this.#gate.idle) return settle(() => this.#run(statement));
    return this.#gate.run(() => this.#run(statement), this.#gateWait("a statement"));
  }

  batch(statements: readonly (Statement | string)[], options: BatchOptions = {}): Promise<QueryResult[]> {
    const work = (): QueryResult[] => this.#inTransaction(options.mode ?? "write", () => statements.map((s) => this.#run(s)));
    if (this.#gate.idle) return settle(work);
    return this.#gate.run(work, this.#gateWait(`a batch of ${statements.length} statement(s)`));
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options: BatchOptions = {}): Promise<T> {
    return this.#gate.run(async () => {
      this.#exec(BEGIN[options.mode ?? "write"]);
      const tx = new EmbeddedTransaction((s) => this.#run(s));
      try {
        const result = await work(tx);
        this.#exec("COMMIT");
        return result;
      } catch (error) {
        this.#rollbackQuietly();
        throw error;
      } finally {
        tx.end();
      }
    }, this.#gateWait("a transaction"));
  }

  #gateWait(what: string): { ms: number; error: () => Error } {
    return { ms: this.#timeoutMs, error: () => connectionHeldError({ timeoutMs: this.#timeoutMs, location: this.location, what }) };
  }

  async close(): Promise<void> {
    const db = this.#db;
    this.#db = null;
    this.#cache.clear();
    if (db !== null && db.open) db.close();
  }

  #inTransaction<T>(mode: TransactionMode, work: () => T): T {
    this.#exec(BEGIN[mode]);
    try {
      const result = work();
      this.#exec("COMMIT");
      return result;
    } catch (error) {
      this.#rollbackQuietly();
      throw error;
    }
  }

  #run(statement: Statement | string): QueryResult {
    const sql = typeof statement === "string" ? statement : statement.sql;
    const args = typeof statement === "string" ? undefined : statement.args;
    checkStatementSize(statement, this.location);
    const prepared = this.#prepare(sql);
    try {
      if (prepared.reader) {
        const values = prepared.all(argsForLibsql(args)) as unknown[][];
        const columns = this.#columns(prepared, values[0]);
        const rows = values.map((v) => rowFrom(columns, v));
        checkResultSize(rows, sql, this.location);
        return { columns, rows, rowsAffected: 0 };
      }
      const info = prepared.run(argsForLibsql(args));
      if (DDL.test(sql)) this.#columnNames = new WeakMap();
      return { columns: [], rows: [], rowsAffected: info.changes };
    } catch (cause) {
      throw toStoreError(cause, `store ${this.location}`);
    }
  }

  /**
   * A reader's column names, asked of libsql once per prepared statement (asking costs more than
   * a small read itself). SQLite re-prepares a statement whose schema changed, which can change
   * a `SELECT *`'s columns: a row of another width asks again, and DDL run here forgets them all.
   */
  #columns(prepared: Prepared, row: readonly unknown[] | undefined): readonly string[] {
    const known = this.#columnNames.get(prepared);
    if (known !== undefined && (row === undefined || row.length === known.length)) return known;
    const columns = prepared.columns().map((c) => c.name);
    this.#columnNames.set(prepared, columns);
    return columns;
  }

  #prepare(sql: string): Prepared {
    const cached = this.#cache.get(sql);
    if (cached !== undefined) return cached;
    let prepared: Prepared;
    try {
      prepared = this.#connection().prepare(sql);
    } catch (cause) {
      throw toStoreError(cause, `store ${this.location}`);
    }
    if (prepared.reader) prepared.raw(true);
    // Evict the oldest entry: cheap, and the hot statements are re-prepared at most once a cycle.
    if (this.#cache.size >= STATEMENT_CACHE_SIZE) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(sql, prepared);
    return prepared;
  }

  /** BEGIN/COMMIT through the statement cache: `exec` would parse them again on every batch. */
  #exec(sql: string): void {
    const prepared = this.#prepare(sql);
    try {
      prepared.run([]);
    } catch (cause) {
      throw toStoreError(cause, `store ${this.location}: ${sql}`);
    }
  }

  #rollbackQuietly(): void {
    const db = this.#db;
    // SQLite may already have rolled back (e.g. after SQLITE_FULL); a second ROLLBACK would throw
    // and hide the error that matters.
    if (db !== null && db.open && db.inTransaction) {
      try {
        db.exec("ROLLBACK");
      } catch {
        // the original error is what the caller needs to see
      }
    }
  }

  #connection(): Connection {
    if (this.#db === null || !this.#db.open) {
      throw new StoreError("store_closed", `store ${this.location}: the store is closed; open a new one`);
    }
    return this.#db;
  }
}

/** A transaction's executor: the store's connection, refused once the transaction has ended. */
class EmbeddedTransaction implements SqlExecutor {
  #run: ((statement: Statement | string) => QueryResult) | null;

  constructor(run: (statement: Statement | string) => QueryResult) {
    this.#run = run;
  }

  execute(statement: Statement | string): Promise<QueryResult> {
    return settle(() => this.#active()(statement));
  }

  batch(statements: readonly (Statement | string)[]): Promise<QueryResult[]> {
    return settle(() => statements.map((s) => this.#active()(s)));
  }

  end(): void {
    this.#run = null;
  }

  #active(): (statement: Statement | string) => QueryResult {
    if (this.#run === null) {
      throw new StoreError("store_closed", "transaction: it has already ended; run statements inside its callback");
    }
    return this.#run;
  }
}

function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}
