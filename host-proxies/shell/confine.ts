/**
 * One confined process plan, for every caller that runs a program under the shell proxy's
 * bubblewrap layout (sandbox.ts): `shell.exec` commands, and long-lived processes such as an
 * MCP server. Before each start the nested mount points are re-checked (mounts.ts) and the
 * mounts' sensitive entries covered (sensitive-overlay.ts), so every caller gets the same
 * confinement without building it again.
 */
import { open } from "node:fs/promises";
import { inheritableDescriptors, maskingStdio } from "./descriptors.js";
import { scrubbedEnv } from "./hardening.js";
import { checkMountPoints } from "./mounts.js";
import type { OpenShellMount } from "./mounts.js";
import type { ProcessPlan } from "./process.js";
import { bwrapArgs, isSystemPath, SANDBOX_HOME } from "./sandbox.js";
import type { SandboxInfo } from "./sandbox.js";
import { coverArgs, sensitiveEntries } from "./sensitive-overlay.js";

export interface ConfinedProgram {
  /** Absolute path of the program, as resolved by the caller. */
  path: string;
  args: readonly string[];
  /** Variables on top of the scrubbed base (PATH, HOME, LANG, TERM). */
  env: Readonly<Record<string, string>>;
  /** Guest cwd; default HOME. */
  cwd?: string | undefined;
  stdin?: Uint8Array | undefined;
  /**
   * Host files or directories outside the system dirs the program needs (its binary, an
   * interpreter's package), bound read-only at their own paths.
   */
  readOnly?: readonly string[];
  /** Entries walked to cover sensitive names before the start is refused. */
  maxScanEntries?: number | undefined;
}

type AvailableSandbox = Extract<SandboxInfo, { available: true }>;

/** The bwrap process that runs `program` inside `mounts`, with no network and nothing else of the host. */
export async function confinedPlan(sandbox: AvailableSandbox, mounts: readonly OpenShellMount[], program: ConfinedProgram): Promise<ProcessPlan> {
  await checkMountPoints(mounts);
  const covers = coverArgs(await sensitiveEntries(mounts, { maxEntries: program.maxScanEntries }));
  const binaries = [program.path, ...(program.readOnly ?? [])].filter((p) => !isSystemPath(p));
  const plan = bwrapArgs({
    system: sandbox.system,
    mounts,
    covers,
    binaries: [...new Set(binaries)],
    cwd: program.cwd,
    env: scrubbedEnv(SANDBOX_HOME, program.env),
    path: program.path,
    args: program.args,
  });
  return { file: sandbox.bwrapPath, args: plan.args, env: {}, cwd: "/", stdin: program.stdin, extraStdio: plan.extraStdio };
}

/**
 * The stdio array for spawning `plan` with the given first three entries: its extra
 * descriptors, then /dev/null over every descriptor the runtime would let the child inherit
 * (descriptors.ts). `close` releases the /dev/null handle once the child is spawned.
 */
export async function confinedStdio(plan: ProcessPlan, first: readonly ["ignore" | "pipe", "pipe", "pipe"]): Promise<{ stdio: Array<number | "pipe" | "ignore">; close: () => Promise<void> }> {
  const devNull = await open("/dev/null", "r");
  const extra = plan.extraStdio ?? [];
  try {
    const stdio = [...first, ...extra.map((x) => (typeof x === "number" ? x : ("pipe" as const))), ...maskingStdio(await inheritableDescriptors(), 3 + extra.length, devNull.fd)];
    return { stdio, close: () => devNull.close() };
  } catch (error) {
    await devNull.close();
    throw error;
  }
}
