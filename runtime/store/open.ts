import { InvalidInputError } from "../errors.js";
import type { Clock } from "./clock.js";
import type { ClientStore } from "./client.js";
import { EmbeddedStore } from "./embedded.js";
import { StoreError } from "./errors.js";
import { retryWhileBusy } from "./busy.js";
import { checkTimeout, DEFAULT_STORE_TIMEOUT_MS, MAX_STORE_TIMEOUT_MS } from "./deadline.js";
import { fileAccess, immutableUri } from "./file-access.js";
import type { FileAccess } from "./file-access.js";
import { applyMigrations } from "./migrations.js";
import type { Migration } from "./migrations.js";
import type { QueryResult, Store } from "./types.js";
import { describeLocation, parseStoreUrl } from "./url.js";
import type { StoreLocation } from "./url.js";

export interface OpenStoreOptions {
  /** `file:<path>` (the embedded default), `:memory:`, or a `libsql://` / `https://` server URL. */
  readonly url: string;
  /** For a server URL. Never put it in the URL: URLs reach logs. */
  readonly authToken?: string;
  /**
   * How long a local write waits for another connection's lock before failing with
   * `store_busy`. Default 5000 ms: without one, a second process on the same file fails at once.
   * On a server, how long a statement or batch the server refused as busy is sent again.
   */
  readonly busyTimeoutMs?: number;
  /**
   * The deadline of one store call, in ms (default 10 000): a statement, a batch, each round trip
   * of a transaction and the transaction whole. A libSQL server that accepted the connection and
   * never answers — or stopped half way through an answer — fails the call `store_timeout`
   * instead of holding it for minutes; nothing that waited on it (an effect behind its intent)
   * is done. Embedded statements are synchronous and bounded by the busy timeout; what waits
   * here is a call queued behind a transaction of the same store.
   */
  readonly timeoutMs?: number;
  /**
   * Local files only. `normal` (default): in WAL mode a commit is durable once `write()` returns,
   * so it survives a kill of the process but not a power loss or kernel crash. `full` also
   * fsyncs the WAL at every commit: durable against power loss, at a much higher cost per commit.
   */
  readonly synchronous?: "normal" | "full";
  /** Applied in order before the store is returned (see `applyMigrations`). */
  readonly migrations?: readonly Migration[];
  /**
   * Files and `:memory:` default to `embedded`; a server URL always uses `client`. Choosing
   * `client` for a file runs the server driver's code path locally (the conformance suite does).
   */
  readonly driver?: "embedded" | "client";
  readonly clock?: Clock;
  /** Resolves a relative `file:` path; default `process.cwd()`. */
  readonly cwd?: string;
  /**
   * Open without writing: reads work, every write fails `store_read_only`. A file is opened so
   * anyway when it cannot be written: no write permission bit at all (mode 0444 — decided from
   * the mode, so it holds for root too, whom the kernel would let write), the kernel refuses
   * write access (a read-only mount), or its folder cannot be written (a commit needs a log
   * there). See `fileAccess`.
   */
  readonly readOnly?: boolean;
}

/** Opens a store, configures a local database (WAL, busy timeout, foreign keys) and migrates it. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const location = parseStoreUrl(options.url, options.cwd === undefined ? {} : { cwd: options.cwd });
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new InvalidInputError(`busyTimeoutMs: ${busyTimeoutMs} must be a non-negative integer`, { field: "busyTimeoutMs" });
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  if (!checkTimeout(timeoutMs)) {
    throw new InvalidInputError(`timeoutMs: ${timeoutMs} must be a whole number of milliseconds from 1 to ${MAX_STORE_TIMEOUT_MS}`, { field: "timeoutMs" });
  }
  const shown = describeLocation(location);
  const access: FileAccess =
    location.kind === "file" ? fileAccess(location.path, { readOnly: options.readOnly === true, location: shown }) : { readOnly: options.readOnly === true, immutable: false };
  const store = await createDriver(location, { ...options, busyTimeoutMs, timeoutMs, immutable: access.immutable });
  const readOnly = access.readOnly;
  try {
    if (location.kind !== "remote") await configureLocal(store, { busyTimeoutMs, synchronous: options.synchronous ?? "normal", readOnly });
    if (options.migrations !== undefined && options.migrations.length > 0) {
      await applyMigrations(store, options.migrations, options.clock === undefined ? {} : { clock: options.clock });
    }
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

async function createDriver(
  location: StoreLocation,
  options: OpenStoreOptions & { busyTimeoutMs: number; timeoutMs: number; immutable: boolean },
): Promise<ClientStore | EmbeddedStore> {
  const shown = describeLocation(location);
  if (location.kind === "remote" || options.driver === "client") {
    // Loaded only for a server (or when asked for): @libsql/client costs every process that
    // opens a local file ~0.15 s of CPU at start for nothing.
    const { ClientStore } = await import("./client.js");
    return new ClientStore({
      kind: location.kind,
      url: location.url,
      location: shown,
      busyTimeoutMs: options.busyTimeoutMs,
      timeoutMs: options.timeoutMs,
      ...(options.authToken === undefined ? {} : { authToken: options.authToken }),
    });
  }
  const path = location.kind !== "file" ? ":memory:" : options.immutable ? immutableUri(location.path) : location.path;
  return new EmbeddedStore({ kind: location.kind, path, location: shown, busyTimeoutMs: options.busyTimeoutMs, timeoutMs: options.timeoutMs });
}

async function configureLocal(store: ClientStore | EmbeddedStore, options: { busyTimeoutMs: number; synchronous: "normal" | "full"; readOnly: boolean }): Promise<void> {
  // Set even though the driver was given the timeout: the pragma is what SQLite reads, and tests
  // check it here.
  await store.execute(`PRAGMA busy_timeout = ${options.busyTimeoutMs}`);
  await store.execute("PRAGMA foreign_keys = ON");
  if (options.readOnly) {
    // SQLite itself refuses every write on this connection (SQLITE_READONLY): no code path can
    // forget to check. The journal mode is left as the file has it (switching would write).
    await store.execute("PRAGMA query_only = ON");
    store.readOnly = true;
    return;
  }
  if (store.kind !== "file") return;
  const mode = await switchToWal(store, options.busyTimeoutMs);
  const journal = String(mode.rows[0]?.journal_mode ?? "");
  if (journal.toLowerCase() !== "wal") {
    // WAL needs shared memory beside the file; some network filesystems cannot provide it.
    throw new StoreError("store_failed", `store ${store.location}: could not switch to WAL (journal_mode is ${journal}); put the file on a local filesystem`);
  }
  await store.execute(`PRAGMA synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
}

/**
 * `PRAGMA journal_mode = WAL`, sent again while another connection holds the file's lock, for up
 * to the busy timeout. On a file still in rollback mode (a new one, or one another tool made) the
 * switch reads and then writes the header; if another connection holds the write lock between
 * the two, SQLite answers SQLITE_BUSY at once, without its busy handler (waiting there could
 * deadlock). Several processes opening a new file together meet exactly that.
 */
function switchToWal(store: ClientStore | EmbeddedStore, busyTimeoutMs: number): Promise<QueryResult> {
  return retryWhileBusy(() => store.execute("PRAGMA journal_mode = WAL"), busyTimeoutMs);
}
