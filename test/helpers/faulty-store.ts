import { StoreError, type BatchOptions, type QueryResult, type SqlExecutor, type Statement, type Store, type StoreKind } from "../../runtime/store/index.js";

/** What a fault throws: a driver's error as the store room reports it, or any other error. */
export type FaultKind = "busy" | "full" | "readonly" | "serialise";

export interface Fault {
  /** Which statements it applies to (default: every one). */
  match?: (sql: string) => boolean;
  /** Matching statements let through before the first failure (default 0). */
  skip?: number;
  /** How many matching statements fail (default: every one from then on). */
  times?: number;
  kind: FaultKind;
}

export function faultError(kind: FaultKind): Error {
  if (kind === "busy") return new StoreError("store_busy", "store test: database is locked (injected)", { sqliteCode: "SQLITE_BUSY" });
  if (kind === "full") return new StoreError("store_full", "store test: database or disk is full (injected)", { sqliteCode: "SQLITE_FULL" });
  if (kind === "readonly") return new StoreError("store_read_only", "store test: attempt to write a readonly database (injected)", { sqliteCode: "SQLITE_READONLY" });
  return new TypeError("Do not know how to serialize a BigInt (injected)");
}

/**
 * A `Store` that passes every statement to a real one, except those a fault picks: they fail
 * as the real driver would (busy, disk full, read-only) or with a serialiser's TypeError. It
 * counts statements, so a test can fail "the Nth statement from here", and can run a hook
 * before a statement (to act from another node at an exact point).
 */
export class FaultyStore implements Store {
  readonly kind: StoreKind;
  readonly location: string;
  /** Statements seen so far (a batch counts each of its statements). */
  count = 0;
  /** Statements that failed on purpose. */
  failed = 0;
  #inner: Store;
  #faults: Array<Fault & { seen: number; thrown: number }> = [];
  #hooks: Array<{ match: (sql: string) => boolean; run: () => Promise<void> }> = [];

  constructor(inner: Store) {
    this.#inner = inner;
    this.kind = inner.kind;
    this.location = inner.location;
  }

  /** Adds a fault; returns a function that removes it. */
  fail(fault: Fault): () => void {
    const entry = { ...fault, seen: 0, thrown: 0 };
    this.#faults.push(entry);
    return () => {
      this.#faults = this.#faults.filter((f) => f !== entry);
    };
  }

  /** Runs `run` (once) before the first statement `match` picks. */
  before(match: (sql: string) => boolean, run: () => Promise<void>): void {
    this.#hooks.push({ match, run });
  }

  clear(): void {
    this.#faults = [];
    this.#hooks = [];
  }

  async execute(statement: Statement | string): Promise<QueryResult> {
    await this.#check(sqlOf(statement));
    return this.#inner.execute(statement);
  }

  async batch(statements: readonly (Statement | string)[], options?: BatchOptions): Promise<QueryResult[]> {
    for (const statement of statements) await this.#check(sqlOf(statement));
    return this.#inner.batch(statements, options);
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options?: BatchOptions): Promise<T> {
    return this.#inner.transaction(
      (tx) =>
        work({
          execute: async (statement) => {
            await this.#check(sqlOf(statement));
            return tx.execute(statement);
          },
          batch: async (statements) => {
            for (const statement of statements) await this.#check(sqlOf(statement));
            return tx.batch(statements);
          },
        }),
      options,
    );
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  async #check(sql: string): Promise<void> {
    this.count++;
    const hook = this.#hooks.find((h) => h.match(sql));
    if (hook) {
      this.#hooks = this.#hooks.filter((h) => h !== hook);
      await hook.run();
    }
    for (const fault of this.#faults) {
      if (fault.match && !fault.match(sql)) continue;
      fault.seen++;
      if (fault.seen <= (fault.skip ?? 0)) continue;
      if (fault.times !== undefined && fault.thrown >= fault.times) continue;
      fault.thrown++;
      this.failed++;
      throw faultError(fault.kind);
    }
  }
}

function sqlOf(statement: Statement | string): string {
  return typeof statement === "string" ? statement : statement.sql;
}

/** Statements that change the database (what a full disk or a read-only file refuses). */
export function isWrite(sql: string): boolean {
  return /^\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|BEGIN IMMEDIATE)/i.test(sql);
}
