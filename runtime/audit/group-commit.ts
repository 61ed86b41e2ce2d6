import { StoreError } from "../store/index.js";
import type { Statement, Store } from "../store/index.js";
import { bodyText, bodyTextAround, chainHash, GENESIS_HASH } from "./chain.js";
import { AuditError } from "./errors.js";
import { ALL_COLUMNS, BODY_COLUMNS, INSERT_SQL } from "./schema.js";
import type { RecordBody } from "./schema.js";
import type { ChainHead, IntentGuard } from "./types.js";

export interface ChainedBody {
  readonly seq: number;
  readonly prevHash: string;
  readonly hash: string;
  readonly body: RecordBody;
}

export interface GroupCommitStats {
  readonly batches: number;
  readonly records: number;
  /** Batches retried because another writer (process or store handle) took the next seq first. */
  readonly conflicts: number;
}

/**
 * Where an appended record ended up: its seq once written, or that its write failed. A record
 * whose `intent_seq` is another's (an outcome of a deferred intent) names that one's ticket.
 */
export class AppendTicket {
  seq: number | undefined = undefined;
  failed = false;
}

interface Pending {
  body: RecordBody;
  /** Its canonical text, or (for a record whose `intent_seq` is known only when its batch is chained) the text around that value. */
  readonly text: string | { readonly before: string; readonly after: string };
  readonly ticket: AppendTicket;
  /** The intent whose seq becomes this record's `intent_seq`: appended before it (FIFO). */
  readonly intentOf?: AppendTicket | undefined;
  /** Committed in the same transaction, before the record (see IntentGuard); such a record ends its batch. */
  readonly guard?: IntentGuard | undefined;
  readonly resolve: (row: ChainedBody) => void;
  readonly reject: (error: unknown) => void;
}

const HEAD_SQL = "SELECT seq, hash FROM audit_records ORDER BY seq DESC LIMIT 1";

/**
 * How long a deferred append waits for another write to take it along before it starts its own:
 * long enough for a ToolCall without host calls (well under a millisecond) to bring its outcome,
 * short enough that whoever awaits a deferred append alone is not kept long.
 */
const DEFER_MS = 5;

/**
 * Group commit for the audit chain. Appends that arrive while the event loop is busy are queued
 * and written by one transaction on the next turn (`setImmediate`), or at once when `maxBatch`
 * are pending; each caller's promise settles when its batch commits or fails. One flush runs at a
 * time and the queue is FIFO, so within a process the chain order is the order of the calls.
 *
 * Across processes (or two store handles) the head is optimistic: the writer chains from the head
 * it last wrote and inserts seq = head + 1. If another writer got there first, the primary key
 * refuses the insert, the whole batch rolls back, and the writer re-reads the head and rechains.
 * This needs no transaction held across awaits, so it behaves the same embedded and over a
 * server (one batch request), and two handles in one process never block each other's thread.
 */
export class GroupCommit {
  readonly #store: Store;
  readonly #maxBatch: number;
  readonly #maxAttempts: number;
  #pending: Pending[] = [];
  /** The latest append: batches are FIFO, so once it settles every earlier one has. */
  #last: Promise<unknown> = Promise.resolve();
  #scheduled = false;
  #deferTimer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | null = null;
  /** undefined: unknown, read it; null: the table is empty. */
  #head: ChainHead | null | undefined = undefined;
  #stats = { batches: 0, records: 0, conflicts: 0 };
  readonly #onWritten: ((records: number) => void) | undefined;

  /** `onWritten`: told how many records each committed batch held (after their callers are resolved). */
  constructor(store: Store, options: { maxBatch: number; maxAttempts?: number; onWritten?: (records: number) => void }) {
    this.#store = store;
    this.#maxBatch = options.maxBatch;
    this.#maxAttempts = options.maxAttempts ?? 100;
    this.#onWritten = options.onWritten;
  }

  get stats(): GroupCommitStats {
    return { ...this.#stats };
  }

  append(body: RecordBody): Promise<ChainedBody> {
    return this.appendTicketed(body).written;
  }

  /**
   * `append`, with the record's ticket. `defer`: no write is started for it at once — the next
   * write takes it along (`flushSoon` starts one), or one starts after `DEFER_MS`. `intentOf`: its `intent_seq` is that ticket's seq,
   * filled in when the batch is chained (the intent was appended before, so it is written in an
   * earlier batch or earlier in the same one; if its write failed, so does this one's).
   */
  appendTicketed(body: RecordBody, options: { defer?: boolean; intentOf?: AppendTicket; guard?: IntentGuard | undefined } = {}): { written: Promise<ChainedBody>; ticket: AppendTicket } {
    // Serialise now, in the caller's turn: a body that cannot be hashed fails its own caller
    // rather than the batch it would have joined.
    const text = options.intentOf === undefined ? bodyText(body) : bodyTextAround(body);
    const ticket = new AppendTicket();
    const written = new Promise<ChainedBody>((resolve, reject) => {
      this.#pending.push({ body, text, ticket, intentOf: options.intentOf, guard: options.guard, resolve, reject });
      if (options.defer === true) this.#scheduleDeferred();
      else this.#schedule();
    });
    this.#last = written.catch(() => undefined);
    return { written, ticket };
  }

  /** Starts a write of what is queued (a deferred record someone now needs) unless one is due. */
  flushSoon(): void {
    if (this.#pending.length > 0) this.#schedule();
  }

  /** Resolves once everything appended before the call has been written or has failed. */
  async flushed(): Promise<void> {
    this.flushSoon();
    await this.#last;
  }

  /** Resolves once everything queued so far has been written or has failed. */
  async drain(): Promise<void> {
    while (this.#pending.length > 0 || this.#flushing !== null) {
      await (this.#flushing ?? this.#flushNow());
    }
  }

  #scheduleDeferred(): void {
    this.#deferTimer ??= setTimeout(() => {
      this.#deferTimer = undefined;
      if (this.#pending.length > 0) this.#schedule();
    }, DEFER_MS);
  }

  #schedule(): void {
    if (this.#flushing !== null || this.#scheduled) return;
    if (this.#pending.length >= this.#maxBatch) {
      void this.#flushNow();
      return;
    }
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#flushing === null) void this.#flushNow();
    });
  }

  #flushNow(): Promise<void> {
    // A guarded record ends its batch: its guard's refusal then costs no other record its place.
    const guarded = this.#pending.findIndex((item) => item.guard !== undefined);
    const batch = this.#pending.splice(0, guarded === -1 ? this.#maxBatch : Math.min(this.#maxBatch, guarded + 1));
    if (this.#pending.length === 0 && this.#deferTimer !== undefined) {
      clearTimeout(this.#deferTimer);
      this.#deferTimer = undefined;
    }
    const flushing = this.#write(batch).finally(() => {
      this.#flushing = null;
      if (this.#pending.length > 0) this.#schedule();
    });
    this.#flushing = flushing;
    return flushing;
  }

  async #write(queued: readonly Pending[]): Promise<void> {
    // A record whose intent was never written cannot name it: it fails on its own.
    const batch = queued.filter((item) => {
      if (item.intentOf?.failed !== true) return true;
      item.ticket.failed = true;
      item.reject(new AuditError("audit_write_failed", "audit append: the intent of this outcome was not written"));
      return false;
    });
    if (batch.length === 0) return;
    try {
      const rows = await this.#commit(batch);
      this.#written(batch, rows);
    } catch (error) {
      // The head is unknown after a failure; read it again before the next batch.
      this.#head = undefined;
      if (error instanceof GuardRefused) {
        const refused = batch[batch.length - 1]!;
        refused.ticket.failed = true;
        refused.reject(new AuditError("audit_intent_refused", "audit append: the intent's guard refused it (its run may no longer make effects here); the effect must not run", { cause: error.cause }));
        // The records before it are written without it.
        await this.#write(batch.slice(0, -1));
        return;
      }
      const failure = toAuditError(error, batch.length);
      for (const item of batch) {
        item.ticket.failed = true;
        item.reject(failure);
      }
    }
  }

  #written(batch: readonly Pending[], rows: readonly ChainedBody[]): void {
    this.#stats.batches++;
    this.#stats.records += rows.length;
    rows.forEach((row, i) => {
      batch[i]!.ticket.seq = row.seq;
      batch[i]!.resolve(row);
    });
    this.#onWritten?.(rows.length);
  }

  async #commit(batch: readonly Pending[]): Promise<ChainedBody[]> {
    for (let attempt = 1; ; attempt++) {
      const head = this.#head === undefined ? await this.#readHead() : this.#head;
      const rows = chain(batch, head);
      const guard = batch[batch.length - 1]!.guard;
      try {
        await this.#store.batch([...(guard === undefined ? [] : [guard.statement]), ...rows.map(insertStatement)], { mode: "write" });
        const last = rows[rows.length - 1] as ChainedBody;
        this.#head = { seq: last.seq, hash: last.hash };
        return rows;
      } catch (error) {
        // Refused by its guard: no retry (the guard would refuse again) and no other record lost.
        if (guard?.refused(error) === true) throw new GuardRefused(error);
        if (!(await this.#lostRace(error, head)) || attempt >= this.#maxAttempts) throw error;
        this.#stats.conflicts++;
      }
    }
  }

  /** A primary-key refusal because another writer advanced the head: chain again from there. */
  async #lostRace(error: unknown, used: ChainHead | null): Promise<boolean> {
    if (!(error instanceof StoreError) || error.code !== "store_constraint") return false;
    const head = await this.#readHead();
    return (head?.seq ?? 0) > (used?.seq ?? 0);
  }

  async #readHead(): Promise<ChainHead | null> {
    const result = await this.#store.execute(HEAD_SQL);
    const row = result.rows[0];
    this.#head = row === undefined ? null : { seq: Number(row.seq), hash: String(row.hash) };
    return this.#head;
  }
}

/** The guard of a batch's last record refused it (the whole transaction rolled back). */
class GuardRefused extends Error {
  constructor(cause: unknown) {
    super("the intent's guard refused it", { cause });
  }
}

function chain(batch: readonly Pending[], head: ChainHead | null): ChainedBody[] {
  let seq = head?.seq ?? 0;
  let prevHash = head?.hash ?? GENESIS_HASH;
  // Seqs given in this chaining (a retry after a lost race chains again from a new head).
  const given = new Map<AppendTicket, number>();
  return batch.map((item) => {
    seq++;
    given.set(item.ticket, seq);
    let body = item.body;
    let text: string;
    if (typeof item.text === "string") text = item.text;
    else {
      const intentSeq = item.intentOf === undefined ? undefined : (given.get(item.intentOf) ?? item.intentOf.seq);
      if (intentSeq === undefined) throw new AuditError("audit_write_failed", "audit append: an outcome was queued before its intent");
      body = { ...body, intent_seq: intentSeq };
      text = item.text.before + String(intentSeq) + item.text.after;
    }
    const hash = chainHash(seq, prevHash, text);
    const row = { seq, prevHash, hash, body };
    prevHash = hash;
    return row;
  });
}

function insertStatement(row: ChainedBody): Statement {
  const args: (string | number | null)[] = [row.seq, row.prevHash, row.hash];
  for (const column of BODY_COLUMNS) args.push(row.body[column]);
  if (args.length !== ALL_COLUMNS.length) throw new Error("audit insert: column count drifted from the schema");
  return { sql: INSERT_SQL, args };
}

function toAuditError(error: unknown, size: number): AuditError {
  const detail = error instanceof Error ? error.message : String(error);
  return new AuditError("audit_write_failed", `audit append: the batch of ${size} record(s) was not written: ${detail}`, {
    cause: error,
  });
}
