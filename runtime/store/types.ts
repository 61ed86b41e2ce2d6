/**
 * The `Store` interface: the one way the runtime talks to libSQL, whether the database is an
 * embedded file, `:memory:` or a libSQL server shared by several runtime nodes.
 */

/**
 * A value a statement can bind or a row can hold. Integers come back as `number` (the runtime
 * stores nothing past 2^53); BLOBs come back as `Uint8Array` from every driver.
 */
export type SqlValue = null | string | number | bigint | Uint8Array;

/** Positional (`?`) or named (`:name`, `@name`, `$name`) arguments. */
export type SqlArgs = readonly SqlValue[] | Readonly<Record<string, SqlValue>>;

export interface Statement {
  readonly sql: string;
  readonly args?: SqlArgs;
}

/** A plain object keyed by column name. */
export type Row = Readonly<Record<string, SqlValue>>;

export interface QueryResult {
  readonly columns: readonly string[];
  readonly rows: readonly Row[];
  /** Rows changed by an INSERT, UPDATE or DELETE; 0 for a query. */
  readonly rowsAffected: number;
}

/**
 * `write` takes the write lock at BEGIN (BEGIN IMMEDIATE), so a read-then-write transaction never
 * fails half way with SQLITE_BUSY; `read` and `deferred` take locks as they go.
 */
export type TransactionMode = "write" | "read" | "deferred";

/** What a transaction body may run: statements on the transaction's own connection. */
export interface SqlExecutor {
  execute(statement: Statement | string): Promise<QueryResult>;
  /** Runs the statements in order; stops at the first error. */
  batch(statements: readonly (Statement | string)[]): Promise<QueryResult[]>;
}

export interface BatchOptions {
  /** Default `write`: most batches write, and taking the lock up front avoids a mid-batch BUSY. */
  readonly mode?: TransactionMode;
}

/** `file` is an embedded database file, `memory` is `:memory:`, `remote` a libSQL server. */
export type StoreKind = "file" | "memory" | "remote";

export interface Store {
  readonly kind: StoreKind;
  /** The URL without credentials, for messages and logs. */
  readonly location: string;
  /**
   * Opened read-only (`openStore` decides, see `OpenStoreOptions.readOnly`): reads work, every
   * write fails with `StoreError` `store_read_only`. Absent means writable.
   */
  readonly readOnly?: boolean;
  /** One statement, auto-committed. Waits while a `transaction()` of this store is open. */
  execute(statement: Statement | string): Promise<QueryResult>;
  /**
   * The statements in one transaction: all apply or none do. This is the cheap way to write
   * several rows (one commit), and the only multi-statement write that works the same embedded
   * and over a server without holding a connection across round trips.
   */
  batch(statements: readonly (Statement | string)[], options?: BatchOptions): Promise<QueryResult[]>;
  /**
   * An interactive transaction: commits when `work` resolves, rolls back when it rejects. Other
   * calls on this store wait until it ends, so keep `work` short and never await anything slow
   * (a network call, a person) inside it; use `tx`, not the store, inside `work` (the store would
   * wait for the transaction that is waiting for it). A second store handle on the same file in
   * the same process would block the thread on the lock for up to the busy timeout and fail
   * `store_busy`: open one store per database per process. Prefer `batch` where it suffices.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options?: BatchOptions): Promise<T>;
  /** Closes the connection; later calls reject with `StoreError` `store_closed`. */
  close(): Promise<void>;
}
