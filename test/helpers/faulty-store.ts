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

  /**
   * The node "dies" once a call with a statement `match` picks has committed: that call answers,
   * and every later one waits, as a killed process's would never be made, until the returned
   * function fails them all (so the node can then be closed). Resolves `died` when it happens.
   */
  stopAfter(match: (sql: string) => boolean): { died: Promise<void>; release: () => void } {
    let died: () => void = () => undefined;
    const diedAt = new Promise<void>((resolve) => (died = resolve));
    let release: () => void = () => undefined;
    const released = new Promise<never>((_, reject) => (release = () => reject(new Error("store test: the node had stopped"))));
    released.catch(() => undefined);
    this.#stop = { match, stopped: false, died, released };
    return { died: diedAt, release };
  }

  async execute(statement: Statement | string): Promise<QueryResult> {
    await this.#stopped();
    await this.#check(sqlOf(statement));
    return this.#afterCommit([statement], await this.#inner.execute(statement));
  }

  async batch(statements: readonly (Statement | string)[], options?: BatchOptions): Promise<QueryResult[]> {
    await this.#stopped();
    for (const statement of statements) await this.#check(sqlOf(statement));
    return this.#afterCommit(statements, await this.#inner.batch(statements, options));
  }

  #stop: { match: (sql: string) => boolean; stopped: boolean; died: () => void; released: Promise<never> } | undefined;

  async #stopped(): Promise<void> {
    if (this.#stop?.stopped === true) await this.#stop.released;
  }

  #afterCommit<T>(statements: readonly (Statement | string)[], result: T): T {
    if (this.#stop !== undefined && !this.#stop.stopped && statements.some((s) => this.#stop!.match(sqlOf(s)))) {
      this.#stop.stopped = true;
      this.#stop.died();
    }
    return result;
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options?: BatchOptions): Promise<T> {
    await this.#stopped();
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
