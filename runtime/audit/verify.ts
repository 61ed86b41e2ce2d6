import type { Row, Store } from "../store/index.js";
import { bodyText, chainHash, GENESIS_HASH } from "./chain.js";
import { bodyFromRow } from "./record.js";
import { chainPages, FAST_COLUMNS, FULL_COLUMNS, rowsBySeq, strictTable } from "./verify-read.js";
import type { ChainHead, InFlightIntent, VerifyIssue, VerifyOptions, VerifyReport } from "./types.js";

/** Past this many, a log is plainly tampered with; keep the report (and memory) bounded. */
const MAX_ISSUES = 10_000;

/**
 * Walks the chain in seq order, one page at a time, recomputing every hash from the stored
 * columns. Each record is checked on its own (altered: content vs its hash) and against the one
 * before (missing: a gap in seq; broken link: prev_hash is not the previous stored hash), so a
 * single edit is named at the seq where it happened rather than poisoning everything after.
 * Intents are matched with their outcomes on the way; the ones left are in flight.
 *
 * Cutting records off the end leaves a valid shorter chain: only `expectedHead`, a head kept
 * somewhere else, detects that.
 *
 * On a STRICT table the database writes each record's canonical text (verify-read.ts) and a
 * record whose text does not hash to its stored hash is read whole and checked from its values,
 * as on any other table; either way every record's hash is recomputed.
 */
export async function verifyChain(store: Store, options: VerifyOptions = {}): Promise<VerifyReport> {
  const walk = new ChainWalk(options.expectedHead);
  const fast = await strictTable(store);
  for await (const page of chainPages(store, fast ? FAST_COLUMNS : FULL_COLUMNS)) {
    if (!fast) {
      for (const row of page) walk.visit(row, bodyText(bodyFromRow(row)));
      continue;
    }
    const hashes = page.map((row) => chainHash(Number(row.seq), String(row.prev_hash), String(row.body_text)));
    const unmatched = page.filter((row, i) => hashes[i] !== row.hash).map((row) => Number(row.seq));
    const whole = unmatched.length === 0 ? undefined : await rowsBySeq(store, unmatched);
    for (let i = 0; i < page.length; i++) {
      const full = whole?.get(Number(page[i]!.seq));
      if (full !== undefined) walk.visit(full, bodyText(bodyFromRow(full)));
      else walk.visitHashed(page[i]!, hashes[i]!);
    }
  }
  const pending = walk.unreadIntents();
  if (pending.length > 0) walk.readIntents(await rowsBySeq(store, pending));
  return walk.report();
}

class ChainWalk {
  #records = 0;
  #expectedSeq = 1;
  #prevHash = GENESIS_HASH;
  #head: ChainHead | null = null;
  #issues: VerifyIssue[] = [];
  /** Open intents in seq order; null until their details are read (the fast path has none). */
  #open = new Map<number, InFlightIntent | null>();
  readonly #expectedHead: ChainHead | undefined;
  #expectedHeadSeen = false;

  constructor(expectedHead: ChainHead | undefined) {
    this.#expectedHead = expectedHead;
  }

  /** One record: `row` has at least seq, prev_hash, hash, status and intent_seq; `body` is its canonical text. */
  visit(row: Row, body: string): void {
    this.visitHashed(row, chainHash(Number(row.seq), String(row.prev_hash), body));
  }

  /** One record whose hash the caller recomputed from its canonical text. */
  visitHashed(row: Row, computed: string): void {
    const seq = Number(row.seq);
    const stored = String(row.hash);
    const prevHash = String(row.prev_hash);
    this.#records++;
    if (seq !== this.#expectedSeq) {
      this.#issue(seq, "missing", `expected seq ${this.#expectedSeq} here: records ${this.#expectedSeq}..${seq - 1} are gone`);
    }
    if (prevHash !== this.#prevHash) {
      this.#issue(seq, "broken_link", `prev_hash ${short(prevHash)} is not the previous record's hash ${short(this.#prevHash)}`);
    }
    if (computed !== stored) this.#issue(seq, "altered", `content hashes to ${short(computed)}, stored hash is ${short(stored)}`);
    this.#track(seq, row);
    if (this.#expectedHead?.seq === seq) {
      this.#expectedHeadSeen = true;
      if (this.#expectedHead.hash !== stored) {
        this.#issue(seq, "head_mismatch", `the recorded head hash ${short(this.#expectedHead.hash)} is not this record's ${short(stored)}`);
      }
    }
    this.#prevHash = stored;
    this.#expectedSeq = seq + 1;
    this.#head = { seq, hash: stored };
  }

  /** The open intents whose details the walk has not seen. */
  unreadIntents(): number[] {
    return [...this.#open].filter(([, intent]) => intent === null).map(([seq]) => seq);
  }

  readIntents(rows: ReadonlyMap<number, Row>): void {
    for (const [seq, row] of rows) if (this.#open.get(seq) === null) this.#open.set(seq, inFlight(seq, row));
  }

  report(): VerifyReport {
    const expected = this.#expectedHead;
    if (expected !== undefined && !this.#expectedHeadSeen) {
      const last = this.#head?.seq ?? 0;
      this.#issue(expected.seq, "head_mismatch", `the chain ends at seq ${last}, before the recorded head ${expected.seq}: records were cut off`);
    }
    return {
      ok: this.#issues.length === 0,
      records: this.#records,
      head: this.#head,
      issues: this.#issues,
      inFlight: [...this.#open.values()].filter((intent): intent is InFlightIntent => intent !== null),
    };
  }

  #track(seq: number, row: Row): void {
    if (row.status === "intent") {
      this.#open.set(seq, row.run_id === undefined ? null : inFlight(seq, row));
      return;
    }
    if (row.intent_seq === null) return;
    const intentSeq = Number(row.intent_seq);
    if (!this.#open.delete(intentSeq)) {
      this.#issue(seq, "orphan_outcome", `outcome of seq ${intentSeq}, which is not an earlier intent without an outcome`);
    }
  }

  #issue(seq: number, kind: VerifyIssue["kind"], detail: string): void {
    if (this.#issues.length < MAX_ISSUES) this.#issues.push({ seq, kind, detail });
  }
}

function inFlight(seq: number, row: Row): InFlightIntent {
  return {
    seq,
    runId: String(row.run_id),
    traceId: String(row.trace_id),
    tool: row.tool === null ? null : String(row.tool),
    hostCall: row.proxy === null ? null : { proxy: String(row.proxy), function: String(row.host_function ?? "") },
    startAt: Number(row.start_at),
  };
}

function short(hash: string): string {
  return `${hash.slice(0, 12)}…`;
}
