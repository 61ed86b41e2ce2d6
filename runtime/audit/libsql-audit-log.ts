import { applyMigrations, boundedPage, systemClock } from "../store/index.js";
import type { Clock, Store } from "../store/index.js";
import { denialBody, intentBody, outcomeBody } from "./body.js";
import { AuditIndexer } from "./audit-index.js";
import { AuditError } from "./errors.js";
import { GroupCommit } from "./group-commit.js";
import type { AppendTicket, ChainedBody, GroupCommitStats } from "./group-commit.js";
import { modelCallBody } from "./model-call.js";
import { patternEventBody } from "./pattern-event.js";
import { pluginEventBody } from "./plugin-event.js";
import { buildQuery, encodeCursor } from "./query.js";
import { toRecord, rowToRecord } from "./record.js";
import { Redactor } from "./redact.js";
import type { RedactionOptions } from "./redact.js";
import { auditMigrations } from "./schema.js";
import type { RecordBody } from "./schema.js";
import type {
  AuditLog,
  AuditPage,
  AuditQuery,
  AuditRecord,
  DeferredIntent,
  DenialInput,
  IntentGuard,
  IntentInput,
  ModelCallInput,
  OutcomeInput,
  PatternEventInput,
  PluginEventInput,
  VerifyOptions,
  VerifyReport,
} from "./types.js";
import { verifyChain } from "./verify.js";

export interface AuditLogOptions {
  readonly clock?: Clock;
  readonly redaction?: RedactionOptions;
  /** Most records per commit. Default 256. */
  readonly maxBatch?: number;
  /**
   * How long the log is quiet before the records not yet in the index table are copied there
   * (default 500 ms; not finite: only once a batch's worth is written, by `index()` and at close).
   */
  readonly indexIdleMs?: number;
}

/**
 * Opens the audit log on a store, applying the audit migrations first (idempotent: a store the
 * composition root already migrated costs one read).
 */
export async function openAuditLog(store: Store, options: AuditLogOptions = {}): Promise<LibsqlAuditLog> {
  await applyMigrations(store, auditMigrations, options.clock === undefined ? {} : { clock: options.clock });
  return new LibsqlAuditLog(store, options);
}

/** The `AuditLog` on libSQL: group-committed, hash-chained appends into `audit_records`. */
export class LibsqlAuditLog implements AuditLog {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #redactor: Redactor;
  readonly #writer: GroupCommit;
  readonly #indexer: AuditIndexer;
  // Outcomes already appended in this process: a second one for an intent is a caller bug.
  readonly #settled = new WeakSet<AuditRecord | DeferredIntent>();
  // What a deferred intent is, for its outcome: its body and where it will be written.
  readonly #deferred = new WeakMap<DeferredIntent, { record: AuditRecord; ticket: AppendTicket }>();
  #closed = false;

  /** Use `openAuditLog`, which migrates the store first. */
  constructor(store: Store, options: AuditLogOptions = {}) {
    this.#store = store;
    this.#clock = options.clock ?? systemClock;
    this.#redactor = new Redactor(options.redaction);
    this.#indexer = new AuditIndexer(store, options.indexIdleMs === undefined ? {} : { idleMs: options.indexIdleMs });
    this.#writer = new GroupCommit(store, { maxBatch: options.maxBatch ?? 256, onWritten: (records) => this.#indexer.written(records) });
    // Records a crash or another process left unindexed are indexed once the log is quiet.
    this.#indexer.written(0);
  }

  get stats(): GroupCommitStats {
    return this.#writer.stats;
  }

  appendIntent(intent: IntentInput, options: { guard?: IntentGuard } = {}): Promise<AuditRecord> {
    return this.#append(() => intentBody(intent, this.#context()), options.guard === undefined ? {} : { guard: options.guard });
  }

  deferIntent(intent: IntentInput): DeferredIntent {
    if (this.#closed) throw new AuditError("audit_closed", "audit append: the log is closed; the effect must not run");
    const body = intentBody(intent, this.#context());
    const { written, ticket } = this.#writer.appendTicketed(body, { defer: true });
    const record = written.then((chained) => toRecord(chained, chained.body));
    // Observed by ensure() or the outcome; a write that fails is never an unhandled rejection.
    record.catch(() => undefined);
    const deferred: DeferredIntent = {
      ensure: () => {
        this.#writer.flushSoon();
        return record;
      },
    };
    // The outcome is built from the intent's content; its seq is filled in when chained.
    this.#deferred.set(deferred, { record: toRecord({ seq: 0, prevHash: "", hash: "" }, body), ticket });
    return deferred;
  }

  async appendOutcome(intent: AuditRecord | DeferredIntent, outcome: OutcomeInput, options: { defer?: boolean } = {}): Promise<AuditRecord> {
    if (this.#settled.has(intent)) {
      const which = "seq" in intent ? `intent ${intent.seq}` : "this intent";
      throw new AuditError("audit_outcome_failed", `audit outcome: ${which} already has an outcome; record it once`);
    }
    this.#settled.add(intent);
    try {
      const deferred = "seq" in intent ? undefined : this.#deferred.get(intent);
      const defer = options.defer === true;
      if ("seq" in intent) return await this.#append(() => outcomeBody(intent, outcome, this.#context()), { defer });
      if (deferred === undefined) throw new AuditError("audit_outcome_failed", "audit outcome: the intent was not deferred by this log");
      if (this.#closed) throw new AuditError("audit_closed", "audit append: the log is closed; the effect must not run");
      const chained = await this.#writer.appendTicketed(outcomeBody(deferred.record, outcome, this.#context()), { intentOf: deferred.ticket, defer }).written;
      return toRecord(chained, chained.body);
    } catch (error) {
      this.#settled.delete(intent);
      throw error;
    }
  }

  appendDenial(denial: DenialInput): Promise<AuditRecord> {
    return this.#append(() => denialBody(denial, this.#context()));
  }

  appendModelCall(call: ModelCallInput): Promise<AuditRecord> {
    // Deferred: it goes with the next commit (the Step's ToolCall), or with `flush()`.
    return this.#append(() => modelCallBody(call, this.#context()), { defer: true });
  }

  appendPluginEvent(event: PluginEventInput): Promise<AuditRecord> {
    return this.#append(() => pluginEventBody(event, this.#context()));
  }

  appendPatternEvent(event: PatternEventInput): Promise<AuditRecord> {
    return this.#append(() => patternEventBody(event, this.#context()));
  }

  flush(): Promise<void> {
    return this.#writer.flushed();
  }

  async query(query: AuditQuery = {}): Promise<AuditPage> {
    const { page, limit, order } = buildQuery(query);
    await this.#writer.flushed();
    // A record holds up to 16 KiB of arguments and 2 KiB of each message: a full page of large
    // ones is more than one statement may return, so it is read with fewer rows, and the page
    // is shorter (its cursor goes on from its last record).
    const { rows, used } = await boundedPage(this.#store, page, limit + 1);
    const shrunk = used <= limit;
    const records = (shrunk ? rows : rows.slice(0, limit)).map(rowToRecord);
    const last = records[records.length - 1];
    const more = shrunk ? rows.length === used : rows.length > limit;
    return { records, nextCursor: more && last !== undefined ? encodeCursor(last.seq, order) : null };
  }

  async verify(options: VerifyOptions = {}): Promise<VerifyReport> {
    await this.#writer.flushed();
    return verifyChain(this.#store, options);
  }

  /** Copies every record written so far into the index table (it is also filled on its own, off the appenders' path). */
  async index(): Promise<void> {
    await this.#writer.flushed();
    await this.#indexer.fill();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#writer.drain();
    await this.#indexer.close();
  }

  async #append(build: () => RecordBody, options: { defer?: boolean; guard?: IntentGuard } = {}): Promise<AuditRecord> {
    if (this.#closed) throw new AuditError("audit_closed", "audit append: the log is closed; the effect must not run");
    const chained: ChainedBody = await this.#writer.appendTicketed(build(), options).written;
    return toRecord(chained, chained.body);
  }

  #context(): { redactor: Redactor; at: number } {
    return { redactor: this.#redactor, at: this.#clock.now() };
  }
}
