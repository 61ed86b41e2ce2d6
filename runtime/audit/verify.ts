import type { Row, Store } from "../store/index.js";
import { bodyText, chainHash, GENESIS_HASH } from "./chain.js";
import { bodyFromRow } from "./record.js";
import { SELECT_COLUMNS } from "./schema.js";
import type { ChainHead, InFlightIntent, VerifyIssue, VerifyOptions, VerifyReport } from "./types.js";

const PAGE = 1000;
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
 */
export async function verifyChain(store: Store, options: VerifyOptions = {}): Promise<VerifyReport> {
  const walk = new ChainWalk(options.expectedHead);
  for (let after = 0; ; ) {
    const page = await store.execute({
      sql: `SELECT ${SELECT_COLUMNS} FROM audit_records WHERE seq > ? ORDER BY seq LIMIT ${PAGE}`,
      args: [after],
    });
    for (const row of page.rows) walk.visit(row);
    const last = page.rows[page.rows.length - 1];
    if (last === undefined || page.rows.length < PAGE) break;
    after = Number(last.seq);
  }
  return walk.report();
}

class ChainWalk {
  #records = 0;
  #expectedSeq = 1;
  #prevHash = GENESIS_HASH;
  #head: ChainHead | null = null;
  #issues: VerifyIssue[] = [];
  #open = new Map<number, InFlightIntent>();
  readonly #expectedHead: ChainHead | undefined;
  #expectedHeadSeen = false;

  constructor(expectedHead: ChainHead | undefined) {
    this.#expectedHead = expectedHead;
  }

  visit(row: Row): void {
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
    const body = bodyFromRow(row);
    const computed = chainHash(seq, prevHash, bodyText(body));
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
      inFlight: [...this.#open.values()],
    };
  }

  #track(seq: number, row: Row): void {
    if (row.status === "intent") {
      this.#open.set(seq, {
        seq,
        runId: String(row.run_id),
        traceId: String(row.trace_id),
        tool: row.tool === null ? null : String(row.tool),
        hostCall: row.proxy === null ? null : { proxy: String(row.proxy), function: String(row.host_function ?? "") },
        startAt: Number(row.start_at),
      });
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

function short(hash: string): string {
  return `${hash.slice(0, 12)}…`;
}
