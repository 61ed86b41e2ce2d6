import type { Migration } from "../../store/index.js";

/** The columns of the second version, copied across when the table is rebuilt. */
const COLUMNS_V2 = [
  "id", "kind", "status", "scope", "run_id", "trace_id", "agent", "parent_run_id", "step_id", "tool_call_id", "tool", "input", "args_hash",
  "capability", "effect", "effect_hash", "risk", "reason", "context", "dedupe_key", "created_at", "expires_at", "decision", "decided_by",
  "decided_at", "decision_reason", "used_at", "use_count", "untrusted_sources",
].join(", ");

/**
 * The approvals table. Times are epoch ms. `dedupe_key` names the binding (kind, run, step, tool,
 * capability, hashes) and is unique among `pending` rows, so a run that asks twice for the same
 * thing — a retry, two runtime nodes — gets one request for the person, not two; once decided,
 * the same binding may be asked again. The CHECKs keep an effect from ever carrying `run` scope
 * and keep the effect columns all set or all null, whatever code writes the row.
 */
export const approvalMigrations: readonly Migration[] = [
  {
    room: "approvals",
    version: 1,
    name: "create approvals",
    statements: [
      `CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('tool_call', 'effect')),
        status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'used')),
        scope TEXT CHECK (scope IN ('once', 'run')),
        run_id TEXT NOT NULL,
        trace_id TEXT NOT NULL,
        agent TEXT NOT NULL,
        parent_run_id TEXT,
        step_id TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        input TEXT NOT NULL,
        args_hash TEXT NOT NULL,
        capability TEXT,
        effect TEXT,
        effect_hash TEXT,
        risk TEXT NOT NULL CHECK (risk IN ('safe', 'guarded', 'unsafe')),
        reason TEXT NOT NULL,
        context TEXT,
        dedupe_key TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        decision TEXT CHECK (decision IN ('approve', 'deny')),
        decided_by TEXT,
        decided_at INTEGER,
        decision_reason TEXT,
        used_at INTEGER,
        use_count INTEGER NOT NULL DEFAULT 0,
        CHECK (kind = 'tool_call' OR scope IS NULL OR scope = 'once'),
        CHECK ((kind = 'effect') = (capability IS NOT NULL AND effect IS NOT NULL AND effect_hash IS NOT NULL))
      ) STRICT`,
      "CREATE UNIQUE INDEX approvals_pending_binding ON approvals (dedupe_key) WHERE status = 'pending'",
      "CREATE INDEX approvals_run_tool ON approvals (run_id, tool, status)",
      "CREATE INDEX approvals_status_expiry ON approvals (status, expires_at)",
    ],
  },
  {
    room: "approvals",
    version: 2,
    name: "approvals show the untrusted content the run had read",
    // JSON list of sources (`http GET https://…`, `gmail message <id>`), shown to the approver.
    statements: ["ALTER TABLE approvals ADD COLUMN untrusted_sources TEXT NOT NULL DEFAULT '[]'"],
  },
  {
    room: "approvals",
    version: 3,
    name: "withdrawn approvals",
    // A run that ends (cancelled on any node, failed, completed) withdraws what it still asked
    // for: a person must never be able to approve an effect of a run that can no longer use it.
    // SQLite cannot change a CHECK in place, so the table is rebuilt with every row unchanged.
    statements: [
      `CREATE TABLE approvals_v3 (
          id TEXT PRIMARY KEY,
          kind TEXT NOT NULL CHECK (kind IN ('tool_call', 'effect')),
          status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'used', 'withdrawn')),
          scope TEXT CHECK (scope IN ('once', 'run')),
          run_id TEXT NOT NULL,
          trace_id TEXT NOT NULL,
          agent TEXT NOT NULL,
          parent_run_id TEXT,
          step_id TEXT NOT NULL,
          tool_call_id TEXT NOT NULL,
          tool TEXT NOT NULL,
          input TEXT NOT NULL,
          args_hash TEXT NOT NULL,
          capability TEXT,
          effect TEXT,
          effect_hash TEXT,
          risk TEXT NOT NULL CHECK (risk IN ('safe', 'guarded', 'unsafe')),
          reason TEXT NOT NULL,
          context TEXT,
          dedupe_key TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL,
          decision TEXT CHECK (decision IN ('approve', 'deny')),
          decided_by TEXT,
          decided_at INTEGER,
          decision_reason TEXT,
          used_at INTEGER,
          use_count INTEGER NOT NULL DEFAULT 0,
          untrusted_sources TEXT NOT NULL DEFAULT '[]',
          CHECK (kind = 'tool_call' OR scope IS NULL OR scope = 'once'),
          CHECK ((kind = 'effect') = (capability IS NOT NULL AND effect IS NOT NULL AND effect_hash IS NOT NULL))
        ) STRICT`,
      `INSERT INTO approvals_v3 (${COLUMNS_V2}) SELECT ${COLUMNS_V2} FROM approvals`,
      "DROP TABLE approvals",
      "ALTER TABLE approvals_v3 RENAME TO approvals",
      "CREATE UNIQUE INDEX approvals_pending_binding ON approvals (dedupe_key) WHERE status = 'pending'",
      "CREATE INDEX approvals_run_tool ON approvals (run_id, tool, status)",
      "CREATE INDEX approvals_status_expiry ON approvals (status, expires_at)",
    ],
  },
  {
    room: "approvals",
    version: 4,
    name: "approvals found by when they were asked and decided",
    // Keyset pages of the list (newest first, over the whole table) and the tail that tells
    // every node of approvals asked and decided on any node (`changedSince`).
    statements: [
      "CREATE INDEX approvals_created ON approvals (created_at, id)",
      "CREATE INDEX approvals_decided ON approvals (decided_at) WHERE decided_at IS NOT NULL",
    ],
  },
  {
    room: "approvals",
    version: 5,
    name: "approvals show which ToolCalls read secrets",
    // JSON list of {tool_call_id, tool, secrets}: names, never values, shown to the approver.
    statements: ["ALTER TABLE approvals ADD COLUMN secrets_read TEXT NOT NULL DEFAULT '[]'"],
  },
  {
    room: "approvals",
    version: 6,
    name: "standing approval patterns",
    // A person's approval of a pattern over a tool's arguments, for one run or for the agent,
    // until it expires or is revoked. `kind` effect: over an Unsafe tool's host-call arguments
    // (only where the agent manifest allows it). `approval_id` is the request it was given on.
    statements: [
      `CREATE TABLE approval_patterns (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('tool_call', 'effect')),
        tool TEXT NOT NULL,
        capability TEXT,
        arguments TEXT NOT NULL,
        run_id TEXT,
        approval_id TEXT,
        expires_at INTEGER NOT NULL,
        created_by TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_by TEXT,
        revoked_at INTEGER,
        matched INTEGER NOT NULL DEFAULT 0,
        last_matched_at INTEGER,
        CHECK ((kind = 'effect') = (capability IS NOT NULL))
      ) STRICT`,
      "CREATE INDEX approval_patterns_lookup ON approval_patterns (agent, tool, kind, expires_at)",
      "CREATE INDEX approval_patterns_created ON approval_patterns (created_at, id)",
    ],
  },
];

export const COLUMNS = [
  "id",
  "kind",
  "status",
  "scope",
  "run_id",
  "trace_id",
  "agent",
  "parent_run_id",
  "step_id",
  "tool_call_id",
  "tool",
  "input",
  "args_hash",
  "capability",
  "effect",
  "effect_hash",
  "risk",
  "reason",
  "context",
  "dedupe_key",
  "created_at",
  "expires_at",
  "decision",
  "decided_by",
  "decided_at",
  "decision_reason",
  "used_at",
  "use_count",
  "untrusted_sources",
  "secrets_read",
] as const;

export const SELECT = `SELECT ${COLUMNS.join(", ")} FROM approvals`;
