/**
 * The CPU time one thread of this process has used, read from Linux's per-thread accounting:
 * `/proc/self/task/<tid>/schedstat` (its first field: nanoseconds on a CPU), else the utime and
 * stime clock ticks of `/proc/self/task/<tid>/stat` (USER_HZ, 100 a second on every Linux
 * architecture Node runs on). A parse worker names its own thread (`ownThreadClock`, read
 * where it runs); the pool reads that thread's clock from the main thread while the worker is
 * busy inside a library. Elsewhere (no `/proc`) there is no such clock, and the pool falls back
 * to the wall clock.
 */
import { readFileSync, readlinkSync } from "node:fs";

const USER_HZ = 100;

/** The calling thread's id as `/proc/self/task/<tid>` names it, or `undefined` without `/proc`. */
export function ownThreadClock(): string | undefined {
  try {
    // `<pid>/task/<tid>`: the thread the call runs on, not the process.
    const tid = /\/task\/(\d+)$/.exec(readlinkSync("/proc/thread-self"))?.[1];
    return tid === undefined || cpuTimeMs(tid) === undefined ? undefined : tid;
  } catch {
    return undefined;
  }
}

/** Milliseconds of CPU thread `tid` has used, or `undefined` when it cannot be read (the thread ended). */
export function cpuTimeMs(tid: string): number | undefined {
  try {
    const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, "latin1").split(" ")[0]);
    if (Number.isFinite(ns)) return ns / 1e6;
  } catch {
    // A kernel without schedstats: the coarser tick counts below.
  }
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "latin1");
    // Fields after the command name (which may hold spaces, so it is skipped by its `)`): state is
    // field 3, utime 14 and stime 15 (proc(5)).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / USER_HZ : undefined;
  } catch {
    return undefined;
  }
}
