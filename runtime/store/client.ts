import { createClient } from "@libsql/client";
import type { Client, InStatement, ResultSet, Transaction } from "@libsql/client";
import { StoreError, toStoreError } from "./errors.js";
import { ConnectionGate } from "./gate.js";
import type { BatchOptions, QueryResult, SqlExecutor, Statement, Store, StoreKind } from "./types.js";
import { checkResultSize, checkStatementSize } from "./limits.js";
import { rowFrom } from "./values.js";
import { retryWhileBusy } from "./busy.js";

/**
 * The `@libsql/client` driver: the one that speaks to a libSQL server (`libsql:`, `http(s):`,
 * `ws(s):`), so several runtime nodes can share one store. It also opens files and `:memory:`,
 * which is how the store conformance suite exercises this code path without a server.
 */
export class ClientStore implements Store {
  readonly kind: StoreKind;
  readonly location: string;
  /** Set by `openStore` once it has made the connection read-only. */
  readOnly = false;
  #client: Client;
  // A local client gets one connection (so the pragmas we set hold for every statement), and an
  // open transaction holds it: without the gate, other calls would fail with TRANSACTION_ACTIVE.
  #gate: ConnectionGate | null;
  #closed = false;
  /** A server's `store_busy` is retried for this long (a local file's lock waits in SQLite itself). */
  readonly #busyRetryMs: number;

  constructor(options: { kind: StoreKind; url: string; location: string; authToken?: string; busyTimeoutMs: number }) {
    this.kind = options.kind;
    this.location = options.location;
    const local = options.kind !== "remote";
    try {
      this.#client = createClient({
        url: options.url,
        ...(options.authToken === undefined ? {} : { authToken: options.authToken }),
        intMode: "number",
        ...(local ? { concurrency: 1, timeout: options.busyTimeoutMs } : {}),
      });
    } catch (cause) {
      throw toStoreError(cause, `store ${options.location}: cannot open`);
    }
    this.#gate = local ? new ConnectionGate() : null;
    this.#busyRetryMs = local ? 0 : options.busyTimeoutMs;
  }

  execute(statement: Statement | string): Promise<QueryResult> {
    return this.#guarded(async () => toResult(await this.#live().execute(toClient(statement, this.location)), statement, this.location));
  }

  batch(statements: readonly (Statement | string)[], options: BatchOptions = {}): Promise<QueryResult[]> {
    return this.#guarded(async () => {
      // Every statement is checked before any is sent: a refused batch writes nothing.
      const results = await this.#live().batch(statements.map((s) => toClient(s, this.location)), options.mode ?? "write");
      return results.map((result, i) => toResult(result, statements[i] as Statement | string, this.location));
    });
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options: BatchOptions = {}): Promise<T> {
    const body = async (): Promise<T> => {
      const tx = await this.#driver(() => this.#live().transaction(options.mode ?? "write"));
      const executor = new ClientTransaction(tx, this.location);
      try {
        const result = await work(executor);
        await this.#driver(() => tx.commit());
        return result;
      } catch (error) {
        // The body's own error goes back to the caller untouched.
        if (!tx.closed) await tx.rollback().catch(() => undefined);
        throw error;
      } finally {
        executor.end();
        tx.close();
      }
    };
    return this.#gate === null ? body() : this.#gate.run(body);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#client.close();
  }

  #guarded<T>(work: () => Promise<T>): Promise<T> {
    return this.#gate === null ? this.#retryBusy(() => this.#driver(work)) : this.#gate.run(() => this.#driver(work));
  }

  /**
   * A server answers `SQLITE_BUSY` when another node's write held the lock past its own wait
   * (several nodes installing the same plugins at start, a large batch on a loaded machine).
   * Such a statement or batch was not applied (a batch rolls back whole), so it is sent again,
   * backing off, until `busyTimeoutMs` has passed: the wait a local file's lock gets in SQLite.
   */
  #retryBusy<T>(call: () => Promise<T>): Promise<T> {
    return retryWhileBusy(call, this.#busyRetryMs, () => this.#closed);
  }

  /** Runs a driver call, turning what the driver throws into a `StoreError`. */
  async #driver<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (cause) {
      throw toStoreError(cause, `store ${this.location}`);
    }
  }

  #live(): Client {
    if (this.#closed) throw new StoreError("store_closed", `store ${this.location}: the store is closed; open a new one`);
    return this.#client;
  }
}

class ClientTransaction implements SqlExecutor {
  #tx: Transaction | null;
  readonly #location: string;

  constructor(tx: Transaction, location: string) {
    this.#tx = tx;
    this.#location = location;
  }

  async execute(statement: Statement | string): Promise<QueryResult> {
    try {
      return toResult(await this.#active().execute(toClient(statement, this.#location)), statement, this.#location);
    } catch (cause) {
      throw toStoreError(cause, `store ${this.#location}`);
    }
  }

  async batch(statements: readonly (Statement | string)[]): Promise<QueryResult[]> {
    try {
      const results = await this.#active().batch(statements.map((s) => toClient(s, this.#location)));
      return results.map((result, i) => toResult(result, statements[i] as Statement | string, this.#location));
    } catch (cause) {
      throw toStoreError(cause, `store ${this.#location}`);
    }
  }

  end(): void {
    this.#tx = null;
  }

  #active(): Transaction {
    if (this.#tx === null) {
      throw new StoreError("store_closed", "transaction: it has already ended; run statements inside its callback");
    }
    return this.#tx;
  }
}

function toClient(statement: Statement | string, location: string): InStatement {
  checkStatementSize(statement, location);
  if (typeof statement === "string") return statement;
  if (statement.args === undefined) return { sql: statement.sql };
  // The client's types want mutable containers; it never mutates them.
  const args = Array.isArray(statement.args) ? [...statement.args] : { ...statement.args };
  return { sql: statement.sql, args } as InStatement;
}

function toResult(result: ResultSet, statement: Statement | string, location: string): QueryResult {
  const columns = [...result.columns];
  // Client rows carry numeric index properties too; rebuild them as plain objects.
  const rows = result.rows.map((row) => rowFrom(columns, columns.map((_, i) => row[i])));
  checkResultSize(rows, typeof statement === "string" ? statement : statement.sql, location);
  return { columns, rows, rowsAffected: result.rowsAffected };
}
