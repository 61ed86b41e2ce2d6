/** Starts `audit-child.js` and collects what it reports as durable. */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

export interface ChildReport {
  /** Seqs of intents and outcomes the child saw committed. */
  readonly committed: number[];
  /** Intent seqs whose outcome the child saw committed. */
  readonly closedIntents: number[];
}

export interface RunningChild {
  readonly process: ChildProcess;
  readonly report: ChildReport;
  /** Resolves when `count` lines have been reported. */
  reported(count: number): Promise<void>;
  /** Resolves with the exit code (null when killed) once stdout is fully read. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

const CHILD = new URL("./audit-child.js", import.meta.url);

export function startChild(args: { mode: "append" | "load"; url: string; calls?: number; concurrency?: number }): RunningChild {
  const child = spawn(process.execPath, [CHILD.pathname, args.mode, args.url, String(args.calls ?? 0), String(args.concurrency ?? 8)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const report: ChildReport = { committed: [], closedIntents: [] };
  const waiters: { count: number; resolve: () => void }[] = [];
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  lines.on("line", (line) => {
    const [kind, seq, intentSeq] = line.split(" ");
    report.committed.push(Number(seq));
    if (kind === "outcome") report.closedIntents.push(Number(intentSeq));
    for (const waiter of waiters.filter((w) => report.committed.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const closed = new Promise<void>((resolve) => lines.on("close", resolve));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    process: child,
    report,
    reported: (count) =>
      report.committed.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    exited: async () => {
      const [status] = await Promise.all([exit, closed]);
      return { ...status, stderr };
    },
  };
}
