import { availableParallelism } from "node:os";
import type { SandboxOptions } from "./types.js";

export type ResolvedSandboxOptions = Required<Omit<SandboxOptions, "onEvent" | "movePatienceMs">>;

/** The sandbox's options with every default filled in (types.ts says what each one is). */
export function resolveSandboxOptions(options: SandboxOptions): ResolvedSandboxOptions {
  const workers = options.workers ?? Math.min(2, availableParallelism());
  // One worker is always left to the others: a run or agent whose calls spin cannot hold all.
  const share = Math.max(1, workers - 1);
  return {
    workers,
    callTimeoutMs: options.callTimeoutMs ?? 30_000,
    maxCallTimeoutMs: options.maxCallTimeoutMs ?? 3_600_000,
    callsPerRun: options.callsPerRun ?? share,
    callsPerAgent: options.callsPerAgent ?? share,
    queuedCallsPerRun: options.queuedCallsPerRun ?? 64,
    createTimeoutMs: options.createTimeoutMs ?? 10_000,
    maxResultBytes: options.maxResultBytes ?? 4 << 20,
    memoryMaxMb: options.memoryMaxMb ?? 256,
    maxHeapMb: options.maxHeapMb ?? 512,
    poolSize: options.poolSize ?? 1,
    refillPool: options.refillPool ?? true,
    startWorkers: options.startWorkers ?? false,
    spinMs: options.spinMs ?? 0.5,
    extismLogLevel: options.extismLogLevel ?? "info",
  };
}
