/**
 * The audit hot path on a file-backed store: audited calls per second under concurrent callers
 * (group commit at work), and the latency one host call pays for its audit (intent durable before
 * the effect, outcome durable after), measured one call at a time.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAuditLog, withAudit } from "../runtime/audit/index.js";
import type { AuditLog, IntentInput } from "../runtime/audit/index.js";
import { openStore } from "../runtime/store/index.js";
import { toSample } from "./peers/sample.js";

export interface AuditBenchOptions {
  /** Calls in the throughput phase. Default 20 000. */
  readonly calls?: number;
  /** Concurrent callers in the throughput phase. Default 64. */
  readonly concurrency?: number;
  /** Timed one-at-a-time calls in the overhead phase. Default 5 000. */
  readonly serialCalls?: number;
  /** Untimed calls before each phase. Default 1 000. */
  readonly warmup?: number;
  /** Where the temporary store goes. Default `os.tmpdir()`. */
  readonly dir?: string;
  /** Default `normal`; `full` fsyncs every commit. */
  readonly synchronous?: "normal" | "full";
}

export interface AuditBenchFigures {
  readonly audited_calls_per_s: { readonly value: number; readonly unit: "per_s" };
  readonly audit_overhead: { readonly p50: number; readonly p95: number; readonly unit: "us" };
  /** `verify` of the whole chain, per record (goal ≤ 5 µs). */
  readonly audit_verify_us_per_record: { readonly value: number; readonly unit: "us" };
}

/** One intent + outcome pair per call, with a no-op effect, so the time measured is the audit's. */
export async function benchAudit(options: AuditBenchOptions = {}): Promise<AuditBenchFigures> {
  const dir = await mkdtemp(join(options.dir ?? tmpdir(), "clawhive-bench-audit-"));
  const store = await openStore({ url: `file:${join(dir, "audit.db")}`, synchronous: options.synchronous ?? "normal" });
  try {
    const log = await openAuditLog(store, { redaction: { secrets: ["sk-bench-secret-0001", "ghp_bench_secret_0002"] } });
    const warmup = options.warmup ?? 1000;
    await concurrentCalls(log, { calls: warmup, concurrency: options.concurrency ?? 64 });
    const calls = options.calls ?? 20_000;
    const started = performance.now();
    await concurrentCalls(log, { calls, concurrency: options.concurrency ?? 64 });
    const perSecond = calls / ((performance.now() - started) / 1000);
    await serialCalls(log, warmup);
    const overhead = toSample(await serialCalls(log, options.serialCalls ?? 5000));
    // The whole chain, recomputed: every record written above (two per call).
    const verifyStarted = performance.now();
    const report = await log.verify();
    const verifyUs = (performance.now() - verifyStarted) * 1000;
    if (!report.ok || report.records === 0) throw new Error(`audit verify failed on the bench's own log: ${JSON.stringify(report.issues.slice(0, 3))}`);
    const records = report.records;
    await log.close();
    return {
      audited_calls_per_s: { value: Math.round(perSecond), unit: "per_s" },
      audit_overhead: { p50: round(overhead.p50), p95: round(overhead.p95), unit: "us" },
      audit_verify_us_per_record: { value: round(verifyUs / records), unit: "us" },
    };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function concurrentCalls(log: AuditLog, options: { calls: number; concurrency: number }): Promise<void> {
  let next = 0;
  const caller = async (): Promise<void> => {
    while (next < options.calls) await audited(log, next++);
  };
  await Promise.all(Array.from({ length: options.concurrency }, caller));
}

async function serialCalls(log: AuditLog, calls: number): Promise<number[]> {
  const durations: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await audited(log, i);
    durations.push((performance.now() - started) * 1000);
  }
  return durations;
}

function audited(log: AuditLog, i: number): Promise<number> {
  return withAudit(log, { intent: intentFor(i), effect: () => i, resultSize: () => 64 });
}

function intentFor(i: number): IntentInput {
  const run = i % 16;
  return {
    kind: "host_call",
    traceId: `trace-${run}`,
    taskId: `task-${run}`,
    runId: `run-${run}`,
    stepId: `step-${i % 7}`,
    agent: "mail-assistant",
    plugin: "files",
    tool: "read-notes",
    hostCall: { proxy: "fs", function: "read-file" },
    args: { path: `/work/notes/${i % 100}.md`, offset: 0, length: 4096, headers: { authorization: "Bearer sk-bench-secret-0001" } },
    requestedCapabilities: [{ capability: "fs.read", resource: "/work/notes/**" }],
    grantedCapabilities: [{ capability: "fs.read", resource: "/work/notes/**" }],
  };
}

function round(us: number): number {
  return Math.round(us * 10) / 10;
}
