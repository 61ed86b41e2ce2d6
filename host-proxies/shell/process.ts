/**
 * Runs one prepared process: no shell, its own process group, bounded output, a deadline.
 *
 * On the deadline the whole group gets SIGTERM, then SIGKILL after a grace period: a child
 * that ignores SIGTERM, or a grandchild it started, does not outlive the call. Under bwrap the
 * group is bwrap itself; its death takes the sandbox's PID namespace (and every process in it)
 * down with it (`--die-with-parent`, PID 1 gone). Without bwrap, a process that calls setsid()
 * leaves the group and is out of reach: that is one of the reasons unsandboxed runs need the
 * manifest's explicit acknowledgement.
 *
 * When the main process exits, whatever is left in its group is killed, and the pipes are
 * given the grace period to drain before they are closed from this side. Descriptors the
 * runtime would let the child inherit are covered first (descriptors.ts).
 */
import { spawn } from "node:child_process";
import type { ChildProcess, StdioOptions } from "node:child_process";
import { open } from "node:fs/promises";
import { HostProxyError } from "../types.js";
import { HeadTailCapture } from "./capture.js";
import { inheritableDescriptors, maskingStdio } from "./descriptors.js";
import type { CaptureOptions } from "./capture.js";
import { endQuietly } from "./sandbox.js";
import type { ExecResult } from "./types.js";

export const DEFAULT_KILL_GRACE_MS = 2_000;

export interface ProcessPlan {
  file: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
  stdin: Uint8Array | undefined;
  /** Descriptors from 3 on: an fd passed through, or bytes written to a fresh pipe. */
  extraStdio?: ReadonlyArray<number | Uint8Array>;
}

export interface RunOptions extends CaptureOptions {
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL. Default 2 s. */
  killGraceMs?: number;
}

export async function runProcess(plan: ProcessPlan, options: RunOptions): Promise<ExecResult> {
  const devNull = await open("/dev/null", "r");
  try {
    const extra = plan.extraStdio ?? [];
    const stdio: StdioOptions = [
      plan.stdin === undefined ? "ignore" : "pipe",
      "pipe",
      "pipe",
      ...extra.map((x) => (typeof x === "number" ? x : "pipe")),
      ...maskingStdio(await inheritableDescriptors(), 3 + extra.length, devNull.fd),
    ];
    return await start(plan, stdio, options);
  } catch (err) {
    throw err instanceof HostProxyError ? err : HostProxyError.io("the command could not be started", err);
  } finally {
    await devNull.close();
  }
}

function start(plan: ProcessPlan, stdio: StdioOptions, options: RunOptions): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(plan.file, [...plan.args], { cwd: plan.cwd, env: { ...plan.env }, stdio, detached: true, shell: false });
    const run = new Run(child, options, { started, resolve, reject });
    child.on("error", (err) => run.fail(HostProxyError.io(`the command could not be started: ${err.message}`, err)));
    if (plan.stdin !== undefined) endQuietly(child.stdin, plan.stdin);
    (plan.extraStdio ?? []).forEach((x, i) => {
      if (typeof x !== "number") endQuietly(child.stdio[3 + i], x);
    });
  });
}

/** The bookkeeping of one running child: captures, timers, and the exit/close handshake. */
interface Settle {
  started: number;
  resolve: (result: ExecResult) => void;
  reject: (err: unknown) => void;
}

class Run {
  readonly #child: ChildProcess;
  readonly #options: RunOptions;
  readonly #settle: Settle;
  readonly #stdout: HeadTailCapture;
  readonly #stderr: HeadTailCapture;
  readonly #timers: NodeJS.Timeout[] = [];
  #timedOut = false;
  #exit: { code: number | null; signal: NodeJS.Signals | null; at: number } | undefined;
  #settled = false;

  constructor(child: ChildProcess, options: RunOptions, settle: Settle) {
    this.#child = child;
    this.#options = options;
    this.#settle = settle;
    this.#stdout = new HeadTailCapture(options);
    this.#stderr = new HeadTailCapture(options);
    child.stdout?.on("data", (chunk: Buffer) => this.#stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => this.#stderr.push(chunk));
    child.on("exit", (code, signal) => this.#exited(code, signal));
    child.on("close", () => this.#finish());
    this.#timers.push(setTimeout(() => this.#deadline(), options.timeoutMs));
  }

  fail(err: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#clear();
    this.#settle.reject(err);
  }

  #deadline(): void {
    this.#timedOut = true;
    this.#killGroup("SIGTERM");
    this.#timers.push(setTimeout(() => this.#killGroup("SIGKILL"), this.#grace()));
  }

  #exited(code: number | null, signal: NodeJS.Signals | null): void {
    this.#exit = { code, signal, at: performance.now() };
    // Stragglers left in the group would hold the pipes open (and outlive the call).
    this.#killGroup("SIGKILL");
    this.#timers.push(setTimeout(() => {
      this.#child.stdout?.destroy();
      this.#child.stderr?.destroy();
      this.#finish();
    }, this.#grace()));
  }

  #finish(): void {
    if (this.#settled || this.#exit === undefined) return;
    this.#settled = true;
    this.#clear();
    const { code, signal, at } = this.#exit;
    this.#settle.resolve({
      exitCode: code ?? undefined,
      signal: signal ?? undefined,
      timedOut: this.#timedOut,
      stdout: this.#stdout.finish(),
      stderr: this.#stderr.finish(),
      durationMs: Math.min(0xffff_ffff, Math.max(0, Math.round(at - this.#settle.started))),
    });
  }

  #killGroup(signal: NodeJS.Signals): void {
    const pid = this.#child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  #grace(): number {
    return this.#options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  }

  #clear(): void {
    for (const timer of this.#timers) clearTimeout(timer);
  }
}
