import { createClient } from "@libsql/client";
import type { Client, InStatement, ResultSet, Transaction } from "@libsql/client";
import { StoreError, toStoreError } from "./errors.js";
import { ConnectionGate } from "./gate.js";
import type { BatchOptions, QueryResult, SqlExecutor, Statement, Store, StoreKind } from "./types.js";
import { checkResultSize, checkStatementSize, statementBytes } from "./limits.js";
import { rowFrom } from "./values.js";
import { retryWhileBusy } from "./busy.js";
import { connectionHeldError, sendAllowanceMs, withDeadline } from "./deadline.js";

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
  /** The most one round trip (a statement, a batch, a transaction's BEGIN, statement or COMMIT) may take. */
  readonly #timeoutMs: number;
  /**
   * A WebSocket carries every call on one socket: once a call got no answer in time, that socket
   * is in doubt and the next call gets a fresh one. Over HTTP each request has its own, aborted at
   * the deadline (see `boundedFetch`).
   */
  readonly #reconnectOnTimeout: boolean;

  constructor(options: { kind: StoreKind; url: string; location: string; authToken?: string; busyTimeoutMs: number; timeoutMs: number }) {
    this.kind = options.kind;
    this.location = options.location;
    this.#timeoutMs = options.timeoutMs;
    const local = options.kind !== "remote";
    try {
      this.#client = createClient({
        url: options.url,
        ...(options.authToken === undefined ? {} : { authToken: options.authToken }),
        intMode: "number",
        ...(local ? { concurrency: 1, timeout: options.busyTimeoutMs } : { fetch: boundedFetch(options.timeoutMs) }),
      });
    } catch (cause) {
      throw toStoreError(cause, `store ${options.location}: cannot open`);
    }
    this.#gate = local ? new ConnectionGate() : null;
    this.#busyRetryMs = local ? 0 : options.busyTimeoutMs;
    this.#reconnectOnTimeout = !local && !/^https?:/i.test(options.url);
  }

  execute(statement: Statement | string): Promise<QueryResult> {
    return this.#guarded("a statement", sendAllowanceMs(statementBytes(statement)), async () => toResult(await this.#live().execute(toClient(statement, this.location)), statement, this.location));
  }

  batch(statements: readonly (Statement | string)[], options: BatchOptions = {}): Promise<QueryResult[]> {
    const bytes = statements.reduce((sum, s) => sum + statementBytes(s), 0);
    return this.#guarded(`a batch of ${statements.length} statement(s)`, sendAllowanceMs(bytes), async () => {
      // Every statement is checked before any is sent: a refused batch writes nothing.
      const results = await this.#live().batch(statements.map((s) => toClient(s, this.location)), options.mode ?? "write");
      return results.map((result, i) => toResult(result, statements[i] as Statement | string, this.location));
    });
  }

  /**
   * Each round trip is bounded, and so is the whole: a transaction still open after the deadline
   * is rolled back (its executor refuses further statements) and fails `store_timeout`, so a
   * body that stalls cannot hold the server's write lock, or this store's connection, for long.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options: BatchOptions = {}): Promise<T> {
    const body = async (): Promise<T> => {
      const tx = await this.#bounded("a transaction's BEGIN", () => this.#driver(() => this.#live().transaction(options.mode ?? "write")));
      const executor = new ClientTransaction(tx, { location: this.location, bound: (what, call) => this.#bounded(what, call) });
      const run = async (): Promise<T> => {
        const result = await work(executor);
        await this.#bounded("a transaction's COMMIT", () => this.#driver(() => tx.commit()));
        return result;
      };
      try {
        return await withDeadline(run, { timeoutMs: this.#timeoutMs, location: this.location, what: "a transaction", onTimeout: () => executor.end() });
      } catch (error) {
        // The body's own error goes back to the caller untouched.
        if (!tx.closed) await withDeadline(() => tx.rollback(), { timeoutMs: this.#timeoutMs, location: this.location, what: "a ROLLBACK" }).catch(() => undefined);
        throw error;
      } finally {
        executor.end();
        tx.close();
      }
    };
    return this.#gate === null ? body() : this.#gate.run(body, this.#gateWait("a transaction"));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#client.close();
  }

  #guarded<T>(what: string, allowanceMs: number, work: () => Promise<T>): Promise<T> {
    if (this.#gate === null) return this.#retryBusy(() => this.#bounded(what, () => this.#driver(work), allowanceMs));
    return this.#gate.run(() => this.#bounded(what, () => this.#driver(work), allowanceMs), this.#gateWait(what));
  }

  /** One round trip under the store's deadline, plus `allowanceMs` for what it sends. */
  #bounded<T>(what: string, call: () => Promise<T>, allowanceMs = 0): Promise<T> {
    return withDeadline(call, {
      timeoutMs: this.#timeoutMs,
      allowanceMs,
      location: this.location,
      what,
      onTimeout: () => {
        if (!this.#reconnectOnTimeout || this.#closed) return;
        // The socket is in doubt: calls waiting on it fail now, the next call opens a fresh one.
        void Promise.resolve()
          .then(() => this.#client.reconnect())
          .catch(() => undefined);
      },
    });
  }

  /** How long a call waits for a transaction of this store to let the connection go. */
  #gateWait(what: string): { ms: number; error: () => Error } {
    return { ms: this.#timeoutMs, error: () => connectionHeldError({ timeoutMs: this.#timeoutMs, location: this.location, what }) };
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

type Bound = <T>(what: string, call: () => Promise<T>) => Promise<T>;

class ClientTransaction implements SqlExecutor {
  #tx: Transaction | null;
  readonly #location: string;
  readonly #bound: Bound;

  constructor(tx: Transaction, options: { location: string; bound: Bound }) {
    this.#tx = tx;
    this.#location = options.location;
    this.#bound = options.bound;
  }

  execute(statement: Statement | string): Promise<QueryResult> {
    return this.#bound("a statement in a transaction", async () => {
      try {
        return toResult(await this.#active().execute(toClient(statement, this.#location)), statement, this.#location);
      } catch (cause) {
        throw toStoreError(cause, `store ${this.#location}`);
      }
    });
  }

  batch(statements: readonly (Statement | string)[]): Promise<QueryResult[]> {
    return this.#bound(`a batch of ${statements.length} statement(s) in a transaction`, async () => {
      try {
        const results = await this.#active().batch(statements.map((s) => toClient(s, this.#location)));
        return results.map((result, i) => toResult(result, statements[i] as Statement | string, this.#location));
      } catch (cause) {
        throw toStoreError(cause, `store ${this.#location}`);
      }
    });
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

/**
 * The driver's `fetch`, with every request aborted at its deadline (the store's, plus what its
 * body takes to send, as the call's own): a server that accepted the connection and never
 * answers (or stopped half way through its answer) frees the request, and its slot in the
 * driver's concurrency limit, instead of holding them for undici's five minutes. The body is
 * read first to know its size (the driver builds it whole in memory anyway).
 */
function boundedFetch(timeoutMs: number): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : new Uint8Array(await request.arrayBuffer());
    const signal = AbortSignal.timeout(timeoutMs + sendAllowanceMs(body?.byteLength ?? 0));
    return fetch(request.url, { method: request.method, headers: request.headers, signal, ...(body === undefined ? {} : { body }) });
  };
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
