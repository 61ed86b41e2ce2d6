import { StoreError } from "./errors.js";
import type { Migration } from "./migrations.js";
import type { Store } from "./types.js";

/**
 * One row per node, rewritten by each readiness probe: a `SELECT 1` answers on a store that
 * refuses every write (a read-only file or mount, a full disk, a server that lost its volume), and
 * a node on such a store cannot run anything — every run writes its record and its audit log.
 */
export const storeProbeMigrations: readonly Migration[] = [
  {
    room: "store-probe",
    version: 1,
    name: "a row per node the readiness probe writes",
    statements: [
      `CREATE TABLE store_probes (
        node TEXT PRIMARY KEY,
        at INTEGER NOT NULL
      ) STRICT`,
    ],
  },
];

/**
 * `ok`: a write committed. `unreachable`: no answer in time, or no connection. `read_only`: the
 * store refuses writes as read-only. `full`: its disk is full. `failing`: a write failed otherwise
 * (a busy lock past its wait, a table gone).
 */
export type StoreHealth = "ok" | "unreachable" | "read_only" | "full" | "failing";

/** How long a probe waits: a readiness check must answer well inside a load balancer's own timeout. */
export const PROBE_TIMEOUT_MS = 2000;

/** Commits one small write (the node's probe row) and says how it went; never throws. */
export async function probeStore(store: Store, options: { node: string; now: number; timeoutMs?: number }): Promise<StoreHealth> {
  if (store.readOnly === true) return "read_only";
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"unreachable">((resolve) => {
    timer = setTimeout(() => resolve("unreachable"), options.timeoutMs ?? PROBE_TIMEOUT_MS);
  });
  const writing = store
    .execute({
      sql: "INSERT INTO store_probes (node, at) VALUES (?, ?) ON CONFLICT (node) DO UPDATE SET at = excluded.at",
      args: [options.node, options.now],
    })
    .then(
      () => "ok" as const,
      (error: unknown) => healthOf(error),
    );
  try {
    return await Promise.race([writing, late]);
  } finally {
    clearTimeout(timer);
  }
}

function healthOf(error: unknown): StoreHealth {
  if (!(error instanceof StoreError)) return "failing";
  if (error.code === "store_read_only") return "read_only";
  if (error.code === "store_full") return "full";
  if (error.code === "store_unreachable" || error.code === "store_timeout" || error.code === "store_closed" || error.code === "store_auth") return "unreachable";
  return "failing";
}
