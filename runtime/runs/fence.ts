import type { AuditLog, IntentGuard } from "../audit/index.js";
import { StoreError, type Migration } from "../store/index.js";

/**
 * Its own migration room (issue 20: fencing), checked in every effect's intent's own transaction.
 * The CHECK is the fence: a row can only be written with `held = 1`. A guard inserts a row only
 * when the run is no longer live, cancelled, or held by another node (`held = 0`), which the CHECK
 * refuses, rolling the intent back with it; while all three hold it inserts nothing, so a fenced
 * intent costs its commit no page of its own. The table therefore stays empty (rows of older
 * versions, which rewrote a row per effect, are never read).
 */
export const runFenceMigrations: readonly Migration[] = [
  {
    room: "run-fence",
    version: 1,
    name: "effects fenced by the run's lease and cancel flag (issue 20)",
    statements: [
      `CREATE TABLE run_fences (
        run_id TEXT PRIMARY KEY,
        node TEXT,
        held INTEGER NOT NULL,
        at INTEGER NOT NULL,
        CONSTRAINT run_fence_held CHECK (held = 1)
      ) STRICT`,
    ],
  },
];

/**
 * The guard an effect's intent is committed with (see IntentGuard): it passes only while run
 * `runId` has not ended, no cancel is recorded for it (on any node), and — given `node` — this
 * node still holds its lease. A node whose lease another node took, or a run cancelled a moment
 * ago elsewhere, gets no intent on record, so it makes no effect.
 */
export function effectGuard(runId: string, node: string | undefined, now: () => number): IntentGuard {
  return {
    statement: {
      sql: `INSERT INTO run_fences (run_id, node, held, at)
            SELECT ?, ?, 0, ? WHERE NOT EXISTS (SELECT 1 FROM runs WHERE id = ? AND status != 'ended' AND cancel_requested = 0 AND (? IS NULL OR node = ?))
            ON CONFLICT (run_id) DO UPDATE SET node = excluded.node, held = excluded.held, at = excluded.at`,
      args: [runId, node ?? null, now(), runId, node ?? null, node ?? null],
    },
    refused: (error) => error instanceof StoreError && error.code === "store_constraint" && error.message.includes("run_fence_held"),
  };
}

/**
 * The guard of a write of the run's own records that must not come from a node that lost the
 * run (a turn appended to its conversation): it passes while no other node holds run `runId`'s
 * lease (held by `node`, or by none), whatever else happened to the run.
 */
export function leaseGuard(runId: string, node: string | undefined, now: () => number): IntentGuard {
  return {
    statement: {
      sql: `INSERT INTO run_fences (run_id, node, held, at)
            SELECT ?, ?, 0, ? WHERE NOT EXISTS (SELECT 1 FROM runs WHERE id = ? AND (? IS NULL OR node IS NULL OR node = ?))
            ON CONFLICT (run_id) DO UPDATE SET node = excluded.node, held = excluded.held, at = excluded.at`,
      args: [runId, node ?? null, now(), runId, node ?? null, node ?? null],
    },
    refused: (error) => error instanceof StoreError && error.code === "store_constraint" && error.message.includes("run_fence_held"),
  };
}

/** `audit`, with every `appendIntent` committed under `guard` (for callers outside the run, such as the MCP client). */
export function fencedAudit(audit: AuditLog, guard: () => IntentGuard): AuditLog {
  return new Proxy(audit, {
    get(target, key, receiver) {
      if (key === "appendIntent") return (intent: Parameters<AuditLog["appendIntent"]>[0]) => target.appendIntent(intent, { guard: guard() });
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Whether `error` is a fence's refusal of an intent (the run may make no effect here). */
export function fenceRefused(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "audit_intent_refused";
}
