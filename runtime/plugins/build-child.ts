/** The build children (componentize-child.ts) and what their transpiled glue is patched with. */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import type { Socket } from "node:net";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PluginError } from "../errors.js";
import { sweepStaleWorkOnce } from "./stale-work.js";

// Named from dist/runtime/, not from this file: the command line's bundle (dist/runtime/cli-bundle/)
// holds this code too, one folder over.
const CHILD = join(dirname(fileURLToPath(import.meta.url)), "..", "plugins", "componentize-child.js");

/**
 * Deterministic edits to the generated glue, applied before hashing:
 * - jco's glue reads `process.env.JCO_DEBUG` on every call (about a quarter of a call's CPU);
 *   the sandbox never debugs through the environment.
 * - At each instantiation the glue tries `WebAssembly.promising` (JSPI) on several exports and
 *   falls back in a catch. Node 20 has no JSPI, so each try throws a TypeError whose stack
 *   capture cost ~0.4 ms: about a quarter of an instantiation. Without JSPI the stand-in throws
 *   a primitive (no stack), taking the same fallback.
 */
export function patchGlue(glue: string): string {
  const debug = "if (!globalThis?.process?.env?.JCO_DEBUG) { return; }";
  const promising =
    "const __clawhivePromising = typeof WebAssembly.promising === 'function' ? WebAssembly.promising : () => { throw 0; };\n";
  return promising + glue.split(debug).join("return;").split("WebAssembly.promising(").join("__clawhivePromising(");
}

/** A warm build child has nothing to do for this long: it leaves (its memory goes with it). */
const IDLE_MS = 2_000;

/**
 * A build job's use of a child: `work` is a fresh folder inside the child's own folder (removed
 * after `use`); `run(mode, ...rest)` runs one job there (`componentize` or `transpile`, see
 * componentize-child.ts).
 */
export type BuildJob<T> = (work: string, run: (mode: string, ...rest: string[]) => Promise<void>) => Promise<T>;

/**
 * Which V8 a child runs. `baseline` (AssemblyScript builds) compiles WebAssembly with Liftoff
 * only: asc's binaryen is a WebAssembly program that a build runs once through, and tiering its
 * hot functions up to TurboFan cost more than it won back (a cold build of the files plugin took
 * ~9.5–10.9 s of the child's CPU with tier-up, ~6.3–6.7 s without, its component byte for byte
 * the same: test/plugins/build-child.test.ts). The componentizer's splicer and the transpiler run
 * long enough in a warm child for TurboFan to pay: `optimizing` keeps V8's default.
 */
export type BuildTier = "optimizing" | "baseline";

const CHILD_FLAGS: Record<BuildTier, readonly string[]> = {
  // One thread for V8's garbage collector: the splicer's memory growth sets off ~400 full
  // collections in a first componentize, and starting concurrent marking for each cost more
  // than the marking (4.5 -> 3.1 s, 6.5 -> 3.5 s of CPU; later jobs and transpiling unchanged).
  optimizing: ["--single-threaded-gc"],
  baseline: ["--single-threaded-gc", "--liftoff-only"],
};

/**
 * Runs `use` with a build child of its own for its whole length (a few run at once, the rest
 * wait their turn).
 *
 * Children are kept warm between jobs: the componentizer's splicer and the transpiler are
 * WebAssembly programs whose first job in a process costs two to three times the next ones (the
 * splicer's memory grows from nothing, and V8 answers each growth with a full garbage
 * collection: ~400 of them in a first componentize). So a first start's seven builds share a
 * few processes, and an idle child leaves after IDLE_MS.
 *
 * Each child works in a folder of its own, its only WASI preopen (given at its start: the
 * splicer's libc reads its preopens once), and a job's folder is made inside it. A job that
 * fails retires its child, so no job runs in a process a failure may have left in a bad state.
 */
export async function withBuildChild<T>(use: BuildJob<T>, options: { tier?: BuildTier } = {}): Promise<T> {
  const child = await pool.acquire(options.tier ?? "optimizing");
  let failed = false;
  let work: string;
  try {
    work = await mkdtemp(join(child.root, "job-"));
  } catch (error) {
    pool.release(child, true);
    throw error;
  }
  try {
    return await use(work, async (mode, ...rest) => {
      try {
        await child.run(mode, work, rest);
      } catch (error) {
        failed = true;
        throw error;
      }
    });
  } finally {
    await rm(work, { recursive: true, force: true });
    pool.release(child, failed);
  }
}

/** One build child process and its folder. */
class BuildChild {
  readonly process: ChildProcess;
  readonly root: string;
  readonly tier: BuildTier;
  #output = "";
  #pending: { resolve: () => void; reject: (error: Error) => void; mode: string } | undefined;
  #exited: Error | undefined;
  idleTimer: NodeJS.Timeout | undefined;

  private constructor(root: string, tier: BuildTier) {
    this.root = root;
    this.tier = tier;
    // The child gets a minimal environment: the build needs nothing from ours.
    this.process = spawn(process.execPath, [...CHILD_FLAGS[tier], CHILD, root], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      // In a process group of its own: a Ctrl-C or a supervisor's stop sent to this process's
      // group would kill it at any point (as it starts, before it can clean up). It leaves
      // when its channel closes instead: when this process exits, however that happens.
      detached: true,
    });
    this.process.stdout!.on("data", (d: Buffer) => (this.#output = (this.#output + d.toString()).slice(-16_000)));
    this.process.stderr!.on("data", (d: Buffer) => (this.#output = (this.#output + d.toString()).slice(-16_000)));
    this.process.on("message", (message: { ok?: boolean; error?: string }) => {
      const pending = this.#pending;
      this.#pending = undefined;
      if (!pending) return;
      if (message.ok) pending.resolve();
      else pending.reject(this.#failure(pending.mode, message.error ?? "no reason given"));
    });
    const gone = (why: string) => {
      this.#exited ??= new Error(why);
      const pending = this.#pending;
      this.#pending = undefined;
      pending?.reject(this.#failure(pending.mode, why));
      void rm(root, { recursive: true, force: true });
    };
    this.process.on("error", (error) => gone(`the build child could not run: ${error.message}`));
    this.process.on("exit", (code, signal) => gone(`the build child exited (${signal ?? `exit ${code}`})`));
  }

  static async start(tier: BuildTier): Promise<BuildChild> {
    sweepStaleWorkOnce(tmpdir());
    return new BuildChild(await mkdtemp(join(tmpdir(), "clawhive-build-")), tier);
  }

  get alive(): boolean {
    return this.#exited === undefined;
  }

  run(mode: string, work: string, rest: string[]): Promise<void> {
    if (this.#exited) return Promise.reject(this.#failure(mode, this.#exited.message));
    this.#output = "";
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject, mode };
      this.process.send({ mode, dir: work, rest });
    });
  }

  /** Keeps this process alive while the child works, not while it waits for work. */
  hold(held: boolean): void {
    const channel = (this.process as { channel?: { ref(): void; unref(): void } }).channel;
    for (const handle of [this.process, channel, this.process.stdout as Socket | null, this.process.stderr as Socket | null]) {
      if (held) handle?.ref();
      else handle?.unref();
    }
  }

  stop(): void {
    if (this.alive) this.process.kill("SIGKILL");
  }

  #failure(mode: string, reason: string): PluginError {
    const text = `${this.#output}${this.#output.endsWith("\n") || this.#output === "" ? "" : "\n"}${reason}`;
    return new PluginError("build_failed", `${mode} failed:\n${text.split(this.root).join("<build>").slice(-4000)}`);
  }
}

/**
 * At most `max` children, each doing one job at a time; waiting jobs are served in order. A job
 * takes an idle child of its own tier; when none is idle and no place is free, an idle child of
 * the other tier leaves to make room.
 */
class BuildPool {
  readonly #idle: BuildChild[] = [];
  readonly #waiting: Array<{ tier: BuildTier; hand: (child: BuildChild | undefined) => void }> = [];
  #count = 0;

  constructor(private readonly max: number) {}

  async acquire(tier: BuildTier): Promise<BuildChild> {
    for (let at = this.#idle.length - 1; at >= 0; at--) {
      const child = this.#idle[at]!;
      if (child.alive && child.tier !== tier) continue;
      this.#idle.splice(at, 1);
      clearTimeout(child.idleTimer);
      if (!child.alive) {
        this.#count--;
        continue;
      }
      child.hold(true);
      return child;
    }
    if (this.#count >= this.max && this.#idle.length > 0) this.#retire(this.#idle.shift()!);
    if (this.#count >= this.max) {
      const handed = await new Promise<BuildChild | undefined>((hand) => this.#waiting.push({ tier, hand }));
      if (handed) return handed;
      return this.acquire(tier);
    }
    this.#count++;
    try {
      return await BuildChild.start(tier);
    } catch (error) {
      this.#count--;
      this.#wakeOne(undefined);
      throw error;
    }
  }

  release(child: BuildChild, failed: boolean): void {
    if (failed || !child.alive) {
      child.stop();
      this.#count--;
      this.#wakeOne(undefined);
      return;
    }
    if (this.#wakeOne(child)) return;
    child.hold(false);
    child.idleTimer = setTimeout(() => {
      const at = this.#idle.indexOf(child);
      if (at >= 0) this.#idle.splice(at, 1);
      this.#count--;
      // Closing the channel is the child's cue to remove its folder and leave.
      if (child.alive) child.process.disconnect();
    }, IDLE_MS);
    child.idleTimer.unref();
    this.#idle.push(child);
  }

  /** An idle child leaves now, its place freed. */
  #retire(child: BuildChild): void {
    clearTimeout(child.idleTimer);
    this.#count--;
    if (child.alive) child.process.disconnect();
  }

  /**
   * Hands `child` (or a free place, when undefined) to the first waiting job; false when none
   * waits. A child of the other tier leaves and its place is handed on instead.
   */
  #wakeOne(child: BuildChild | undefined): boolean {
    const next = this.#waiting.shift();
    if (!next) return false;
    if (child !== undefined && child.tier !== next.tier) {
      this.#retire(child);
      next.hand(undefined);
      return true;
    }
    next.hand(child);
    return true;
  }
}

/** As many children as builds run at once by default (build-all.ts): the machine's parallelism, at most 4. */
const pool = new BuildPool(Math.min(4, availableParallelism()));
