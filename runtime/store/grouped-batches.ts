/**
 * Group commit across callers: the write batches that arrive in one turn of the event loop (the
 * run rows, journal marks and events of many runs in flight) are written by one transaction, and
 * each caller's promise settles once that transaction has committed, with its own statements'
 * results. A batch stays all-or-nothing (it is part of a larger all-or-nothing one). Reads,
 * single statements and interactive transactions go to the store at once.
 *
 * One caller's failing statement (a constraint, a row too large, a full disk or page limit that a
 * smaller batch may still fit under) would fail the whole group: such a group rolled back whole,
 * so it is written again one batch at a time and the error reaches only the callers whose own
 * batch fails, as it would have had each written alone. An error that leaves the outcome unknown
 * (the server unreachable or silent) or the store unable to write at all (busy, read-only) is
 * every caller's: nothing is tried again behind their backs.
 */
import { StoreError, type StoreErrorCode } from "./errors.js";
import type { BatchOptions, QueryResult, SqlExecutor, Statement, Store, StoreKind } from "./types.js";

/** Errors a statement makes in a transaction that then rolls back as a whole. */
const OWN_STATEMENT: ReadonlySet<StoreErrorCode> = new Set(["store_constraint", "store_too_large", "store_failed", "store_full"]);

/** At most this many statements in one group (a server caps one request's size). */
const MAX_GROUP_STATEMENTS = 512;

interface Queued {
  readonly statements: readonly (Statement | string)[];
  readonly resolve: (results: QueryResult[]) => void;
  readonly reject: (error: unknown) => void;
}

export class GroupedBatches implements Store {
  readonly #store: Store;
  #queue: Queued[] = [];
  #scheduled = false;
  #stats = { groups: 0, batches: 0 };

  constructor(store: Store) {
    this.#store = store;
  }

  get kind(): StoreKind {
    return this.#store.kind;
  }

  get location(): string {
    return this.#store.location;
  }

  get readOnly(): boolean | undefined {
    return this.#store.readOnly;
  }

  /** Transactions written and the batches they carried (what grouping saves is measurable). */
  get stats(): { groups: number; batches: number } {
    return { ...this.#stats };
  }

  execute(statement: Statement | string): Promise<QueryResult> {
    return this.#store.execute(statement);
  }

  batch(statements: readonly (Statement | string)[], options: BatchOptions = {}): Promise<QueryResult[]> {
    if ((options.mode ?? "write") !== "write" || statements.length === 0 || statements.length >= MAX_GROUP_STATEMENTS) return this.#store.batch(statements, options);
    return new Promise<QueryResult[]>((resolve, reject) => {
      this.#queue.push({ statements, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.#flush();
      });
    });
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options?: BatchOptions): Promise<T> {
    return this.#store.transaction(work, options);
  }

  /** The store is the opener's to close: this view of it closes nothing. */
  async close(): Promise<void> {}

  #flush(): void {
    const queue = this.#queue;
    this.#queue = [];
    let start = 0;
    while (start < queue.length) {
      let end = start;
      let count = 0;
      while (end < queue.length && (end === start || count + queue[end]!.statements.length <= MAX_GROUP_STATEMENTS)) count += queue[end++]!.statements.length;
      void this.#write(queue.slice(start, end));
      start = end;
    }
  }

  async #write(group: readonly Queued[]): Promise<void> {
    this.#stats.groups += 1;
    this.#stats.batches += group.length;
    if (group.length === 1) return alone(this.#store, group[0]!);
    let results: QueryResult[];
    try {
      results = await this.#store.batch(group.flatMap((q) => q.statements));
    } catch (error) {
      if (error instanceof StoreError && !OWN_STATEMENT.has(error.code)) {
        for (const q of group) q.reject(error);
        return;
      }
      // Rolled back whole: each batch again on its own, in order, so only the failing one fails.
      for (const q of group) await alone(this.#store, q);
      return;
    }
    let at = 0;
    for (const q of group) {
      q.resolve(results.slice(at, at + q.statements.length));
      at += q.statements.length;
    }
  }
}

async function alone(store: Store, queued: Queued): Promise<void> {
  try {
    queued.resolve(await store.batch(queued.statements));
  } catch (error) {
    queued.reject(error);
  }
}
