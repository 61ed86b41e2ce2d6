/** The store room: libSQL connections (embedded file, `:memory:`, server) and migrations. */
export { openStore } from "./open.js";
export type { OpenStoreOptions } from "./open.js";
export { applyMigrations } from "./migrations.js";
export type { Migration, MigrationReport } from "./migrations.js";
export { StoreError, storeUnavailable } from "./errors.js";
export { DEFAULT_STORE_TIMEOUT_MS } from "./deadline.js";
export { probeStore, storeProbeMigrations } from "./probe.js";
export type { StoreHealth } from "./probe.js";
export { MAX_STATEMENT_BYTES } from "./limits.js";
export { allRows, boundedPage, pagedRows } from "./pages.js";
export { CHUNK_BYTES, joinUtf8, previewUtf8, readParts, utf8Parts } from "./chunks.js";
export type { PageQuery } from "./pages.js";
export type { StoreErrorCode } from "./errors.js";
export { systemClock } from "./clock.js";
export type { Clock } from "./clock.js";
export { parseStoreUrl } from "./url.js";
export type { StoreLocation } from "./url.js";
export type {
  BatchOptions,
  QueryResult,
  Row,
  SqlArgs,
  SqlExecutor,
  SqlValue,
  Statement,
  Store,
  StoreKind,
  TransactionMode,
} from "./types.js";
export { GroupedBatches } from "./grouped-batches.js";
