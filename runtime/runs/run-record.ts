/**
 * The runs room's record shapes and schema: what a run is in the store, its migrations, and how
 * a row reads back (see RunRecords for the queries).
 */
import type { Migration, Row } from "../store/index.js";
import { runValueMigrations } from "./run-values.js";
import { compactionMigrations } from "./compactions.js";

export type RunStatus = "active" | "awaiting_approval" | "ended";
/** Why an ended run ended. */
export type RunEndReason = "completed" | "cancelled" | "failed";

/** A ToolCall of a run's plan: explicit calls given when the run was submitted. */
export interface PlannedCall {
  name: string;
  input: unknown;
  /** The call's deadline, in place of the agent's `call_timeout_ms`. */
  timeoutMs?: number;
}

/** A ToolCall the run could not finish without a person: replayed once its approval is decided. */
export interface PendingToolCall {
  tool: string;
  input: unknown;
  stepId: string;
  approvalId: string;
  /** The ToolCall's own (Guarded) approval was already given: a replay does not ask again. */
  toolApproved?: boolean;
  /**
   * A sub-agent tool (`subagent_<name>`) whose child run waits for a person: the run waits until
   * that child ends, and `approvalId` is the approval the child (or its own child) waits for.
   */
  childRunId?: string;
}

export interface RunRecord {
  id: string;
  traceId: string;
  taskId: string;
  parentRunId: string | null;
  agent: string;
  /** The plugins its agent listed when it started (a removal waits for the run to end). */
  plugins: string[] | null;
  task: string | null;
  /** The task's narrower grant (JSON), or null for the agent's whole grant. */
  taskGrants: unknown;
  status: RunStatus;
  pending: PendingToolCall | null;
  report: unknown;
  createdAt: number;
  endedAt: number | null;
  endReason: RunEndReason | null;
  /** The API token that submitted it (a client sees only its own runs). */
  ownerToken: string | null;
  /** Explicit ToolCalls to run in order, and how many have finished. */
  plan: PlannedCall[] | null;
  planNext: number;
  /** The outcomes of the plan's ToolCalls so far. */
  outcomes: unknown[];
  /** The runtime node driving it and until when its lease holds. */
  node: string | null;
  leaseUntil: number | null;
  cancelRequested: boolean;
  /** A model-driven run's final answer (or why it stopped), once it has ended. */
  result: string | null;
  /** The conversation a model-driven run continues. */
  conversationId: string | null;
}

export const runMigrations: readonly Migration[] = [
  {
    room: "runs",
    version: 1,
    name: "runs",
    statements: [
      `CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        trace_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        parent_run_id TEXT,
        agent TEXT NOT NULL,
        task TEXT,
        task_grants TEXT,
        status TEXT NOT NULL,
        pending TEXT,
        report TEXT,
        created_at INTEGER NOT NULL,
        ended_at INTEGER
      ) STRICT`,
      "CREATE INDEX runs_status ON runs (status)",
      "CREATE INDEX runs_trace ON runs (trace_id)",
    ],
  },
  {
    room: "runs",
    version: 2,
    name: "the plugins a run uses",
    statements: ["ALTER TABLE runs ADD COLUMN plugins TEXT"],
  },
  {
    room: "runs",
    version: 3,
    name: "plans, owners, leases, cancellation and persisted events",
    statements: [
      "ALTER TABLE runs ADD COLUMN end_reason TEXT",
      "ALTER TABLE runs ADD COLUMN owner_token TEXT",
      "ALTER TABLE runs ADD COLUMN plan TEXT",
      "ALTER TABLE runs ADD COLUMN plan_next INTEGER NOT NULL DEFAULT 0",
      "ALTER TABLE runs ADD COLUMN outcomes TEXT",
      "ALTER TABLE runs ADD COLUMN node TEXT",
      "ALTER TABLE runs ADD COLUMN lease_until INTEGER",
      "ALTER TABLE runs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0",
      "CREATE INDEX runs_owner ON runs (owner_token)",
      `CREATE TABLE run_events (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) STRICT`,
    ],
  },
  {
    room: "runs",
    version: 4,
    name: "model-driven runs: loop state, final result, conversations",
    statements: [
      "ALTER TABLE runs ADD COLUMN result TEXT",
      "ALTER TABLE runs ADD COLUMN conversation_id TEXT",
      // One row per run the model drives (runs/loop): its messages and counters while it waits
      // for a person, so any node (or a restart) continues it where it stopped.
      `CREATE TABLE run_loops (
        run_id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT`,
      `CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        owner_token TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT`,
      `CREATE TABLE conversation_messages (
        conversation_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        run_id TEXT,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (conversation_id, seq)
      ) STRICT`,
    ],
  },
  {
    room: "runs",
    version: 5,
    name: "indexes for a run's sub-agents and for listing runs",
    // Every run's end looks for unfinished runs below it (they are cancelled with it): without
    // an index each end scanned the whole runs table. Partial: most runs have no parent. Lists
    // of runs are newest first, a page at a time.
    statements: [
      "CREATE INDEX runs_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL",
      "CREATE INDEX runs_created ON runs (created_at)",
    ],
  },
  ...runValueMigrations,
  ...compactionMigrations,
];

export function json(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

export function toRecord(row: Row): RunRecord {
  const parse = (v: unknown) => (typeof v === "string" ? (JSON.parse(v) as unknown) : null);
  return {
    id: String(row.id),
    traceId: String(row.trace_id),
    taskId: String(row.task_id),
    parentRunId: row.parent_run_id === null ? null : String(row.parent_run_id),
    agent: String(row.agent),
    plugins: parse(row.plugins) as string[] | null,
    task: row.task === null ? null : String(row.task),
    taskGrants: parse(row.task_grants),
    status: String(row.status) as RunStatus,
    pending: parse(row.pending) as PendingToolCall | null,
    report: parse(row.report),
    createdAt: Number(row.created_at),
    endedAt: row.ended_at === null ? null : Number(row.ended_at),
    endReason: row.end_reason === null || row.end_reason === undefined ? null : (String(row.end_reason) as RunEndReason),
    ownerToken: row.owner_token === null || row.owner_token === undefined ? null : String(row.owner_token),
    plan: parse(row.plan) as PlannedCall[] | null,
    planNext: Number(row.plan_next ?? 0),
    outcomes: (parse(row.outcomes) as unknown[] | null) ?? [],
    node: row.node === null || row.node === undefined ? null : String(row.node),
    leaseUntil: row.lease_until === null || row.lease_until === undefined ? null : Number(row.lease_until),
    cancelRequested: Number(row.cancel_requested ?? 0) === 1,
    result: row.result === null || row.result === undefined ? null : String(row.result),
    conversationId: row.conversation_id === null || row.conversation_id === undefined ? null : String(row.conversation_id),
  };
}
