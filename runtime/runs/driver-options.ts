/** What a RunDriver (driver.ts) is given: the node it runs as, its leases, and what it may drive. */
import type { AuditLog } from "../audit/index.js";
import type { RunJournal } from "./journal.js";
import type { RunRecords } from "./records.js";
import type { Run } from "./run.js";

export interface RunDriverOptions {
  records: RunRecords;
  /** This runtime node's id (leases name it). */
  node: string;
  /** How long a lease holds without renewal; a dead node's runs are taken over after it. */
  leaseMs: number;
  now: () => number;
  /** A live run of this node, or one rebuilt from the store (the caller holds its lease). */
  open: (id: string) => Promise<Run>;
  /** The runs this node drives now. */
  live: () => Iterable<Run>;
  /**
   * Takes (or renews) this node's lease on run `id`: granted when free, held by this node, run
   * out, or held by a process known to be gone.
   */
  claim: (id: string, holder: { node: string | null; leaseUntil: number | null }) => Promise<boolean>;
  /**
   * Drives runs the model drives (task text, no plan): `owns` says whether a run is one of
   * them. Absent: only plans are driven.
   */
  loop?: { owns(id: string): Promise<boolean>; drive(run: Run): Promise<void> };
  /**
   * Ends run `id`, which no Run object here can end (it could not be opened, or a node that
   * died left it `active`), with `reason` and the failure's text.
   */
  abandon: (id: string, end: { reason: "failed" | "cancelled"; code: string; message: string }) => Promise<void>;
  /** Whether node `node` is known to be gone (a process of this machine that no longer exists). */
  holderGone?: (node: string) => boolean;
  /** Failures of background work, for the operator. */
  onError?: (error: unknown, runId: string) => void;
  /**
   * The Step journal of plans and where their effects are recorded: a plan taken over from a
   * node that stopped inside a ToolCall re-runs it only if it had begun no effect. Absent: no
   * journal is kept.
   */
  journal?: { store: RunJournal; audit: Pick<AuditLog, "query" | "flush" | "appendOutcome"> };
  /** Default true: the tick continues decided waiting runs; false leaves them to `continue`. */
  continueDecided?: boolean;
  /** Default true: the tick takes over runs other nodes left (orphans); false leaves them to other nodes. */
  adoptOrphans?: boolean;
}
