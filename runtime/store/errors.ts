import { ClawhiveError } from "../errors.js";

/**
 * Why a store call failed. `store_busy`: another connection held the lock past the busy
 * timeout; `store_constraint`: a constraint (primary key, unique, foreign key, check) refused a
 * write; `store_closed`: the store was closed; `store_failed`: anything else the database said;
 * `migration_mismatch`: an applied migration differs from the code's; `store_read_only`: the
 * database cannot be written (a file without write permission, a read-only mount, a store opened
 * read-only): reads still work; `store_too_large`: a statement would bind or return more than
 * `MAX_STATEMENT_BYTES` (nothing was written); `store_full`: the disk (or the server's) is full, the
 * write was refused whole and reads still work; `store_unreachable`: the libSQL server could not be
 * reached or dropped the connection (a write may or may not have applied: the server's
 * transaction is all-or-nothing, so re-read before retrying); `store_auth`: the server refused the
 * auth token; `store_timeout`: the server (or the way to it) gave no whole answer within the
 * store's deadline (`timeoutMs`), or a transaction held the connection past it — the call failed,
 * a write may or may not have applied (re-read before retrying), and nothing that waited on it
 * was done.
 */
export type StoreErrorCode =
  | "store_busy"
  | "store_read_only"
  | "store_full"
  | "store_constraint"
  | "store_closed"
  | "store_failed"
  | "store_too_large"
  | "store_unreachable"
  | "store_auth"
  | "store_timeout"
  | "migration_mismatch";

/** The codes that mean "the store cannot serve this now, try again later" (HTTP 503). */
const UNAVAILABLE: ReadonlySet<StoreErrorCode> = new Set(["store_busy", "store_read_only", "store_full", "store_unreachable", "store_timeout"]);

/** Whether `code` says the store is unavailable for now (busy, read-only, unreachable, silent) rather than broken. */
export function storeUnavailable(code: string): boolean {
  return UNAVAILABLE.has(code as StoreErrorCode);
}

export class StoreError extends ClawhiveError {
  declare readonly code: StoreErrorCode;
  /** The SQLite result code name when the database gave one, e.g. `SQLITE_CONSTRAINT_PRIMARYKEY`. */
  readonly sqliteCode: string | undefined;

  constructor(code: StoreErrorCode, message: string, options: { sqliteCode?: string; cause?: unknown } = {}) {
    super(code, message, { status: UNAVAILABLE.has(code) ? 503 : 500, cause: options.cause });
    this.sqliteCode = options.sqliteCode;
  }
}

/**
 * Wraps what a driver threw (libsql's `SqliteError`, `@libsql/client`'s `LibsqlError`, or a
 * network error) into a `StoreError`, keeping the SQLite code so callers can tell a busy database
 * from a constraint without parsing messages.
 */
export function toStoreError(error: unknown, context: string): StoreError {
  if (error instanceof StoreError) return error;
  const server = serverError(error, context);
  if (server !== undefined) return server;
  const sqliteCode = sqliteCodeOf(error);
  const detail = error instanceof Error ? error.message : String(error);
  const message = `${context}: ${detail}`;
  if (sqliteCode === undefined) return new StoreError("store_failed", message, { cause: error });
  const code = codeFor(sqliteCode);
  if (code === "store_read_only") {
    return new StoreError(code, `${context}: the store is read-only (${sqliteCode}): writes are refused, reads still work; make the file and its folder writable, or open it read-write`, { sqliteCode, cause: error });
  }
  return new StoreError(code, message, { sqliteCode, cause: error });
}

function codeFor(sqliteCode: string): StoreErrorCode {
  if (sqliteCode.startsWith("SQLITE_BUSY") || sqliteCode.startsWith("SQLITE_LOCKED")) return "store_busy";
  if (sqliteCode.startsWith("SQLITE_CONSTRAINT")) return "store_constraint";
  if (sqliteCode.startsWith("SQLITE_READONLY")) return "store_read_only";
  if (sqliteCode.startsWith("SQLITE_FULL")) return "store_full";
  if (sqliteCode === "CLIENT_CLOSED") return "store_closed";
  return "store_failed";
}

// libsql puts the extended name in `code`; @libsql/client puts the primary name in `code` and the
// extended one in `extendedCode`. Prefer the extended name: it says which constraint failed.
function sqliteCodeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const record = error as { code?: unknown; extendedCode?: unknown };
  if (typeof record.extendedCode === "string" && record.extendedCode !== "") return namedCode(record.extendedCode);
  return typeof record.code === "string" && record.code !== "" ? namedCode(record.code) : undefined;
}

/** Extended codes libsql has no name for, by number (sqlite3.h). */
const EXTENDED_NAMES: Readonly<Record<number, string>> = {
  1032: "SQLITE_READONLY_DBMOVED",
  1288: "SQLITE_READONLY_CANTINIT",
  1544: "SQLITE_READONLY_DIRECTORY",
};
const PRIMARY_NAMES: Readonly<Record<number, string>> = { 5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 8: "SQLITE_READONLY", 13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 19: "SQLITE_CONSTRAINT" };

/**
 * libsql names codes it does not know `UNKNOWN_SQLITE_ERROR_<n>` (a read-only folder's WAL is
 * 1544, SQLITE_READONLY_DIRECTORY): named here, so they map like the codes it does name.
 */
function namedCode(code: string): string {
  const unknown = /^UNKNOWN_SQLITE_ERROR_(\d+)$/.exec(code);
  if (unknown === null) return code;
  const n = Number(unknown[1]);
  return EXTENDED_NAMES[n] ?? PRIMARY_NAMES[n & 0xff] ?? code;
}

/**
 * What a libSQL server (or the way to it) said, as a code a caller can act on: a refused token, a
 * server that cannot be reached or dropped the connection, a response over the server's cap.
 */
function serverError(error: unknown, context: string): StoreError | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  const status = /HTTP status (\d{3})/.exec(error.message)?.[1];
  if (status === "401" || status === "403") {
    return new StoreError("store_auth", `${context}: the server refused the auth token (HTTP ${status}); set CLAWHIVE_STORE_AUTH_TOKEN (store.auth_token) to a token this server accepts`, { cause: error });
  }
  if (code === "RESPONSE_TOO_LARGE") {
    return new StoreError("store_too_large", `${context}: the server refused to send a response this large; store large values in chunks and page queries that can return many rows`, { cause: error });
  }
  const network = networkCause(error);
  if (network !== undefined) {
    const tls = /SSL|TLS|EPROTO|CERT/i.test(network) ? "; libsql:// and https:// speak TLS, use http:// or ws:// for a server without it" : "";
    return new StoreError("store_unreachable", `${context}: the libSQL server cannot be reached or dropped the connection (${network})${tls}; check the store URL and that the server runs`, { cause: error });
  }
  return undefined;
}

/** The network failure behind a driver error (`fetch failed` hides it in `cause`), if it was one. */
function networkCause(error: Error): string | undefined {
  const code = (error as { code?: unknown }).code;
  if (code === "HRANA_WEBSOCKET_ERROR") return error.message.replace(/^HRANA_WEBSOCKET_ERROR: /, "");
  const cause = (error as { cause?: unknown }).cause;
  if (error instanceof TypeError && error.message === "fetch failed") {
    const inner = cause as { code?: unknown; message?: unknown } | undefined;
    const detail = typeof inner?.code === "string" ? inner.code : typeof inner?.message === "string" ? inner.message : "fetch failed";
    return detail;
  }
  if (typeof code === "string" && /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code)) return code;
  if (cause instanceof Error && cause !== error) return networkCause(cause);
  return undefined;
}
