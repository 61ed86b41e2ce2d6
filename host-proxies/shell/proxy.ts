/**
 * The shell host proxy of one instance: grant, mounts and sandbox fixed at creation. `exec`
 * acts only on a `CanonicalExec` (canonicalize.ts) and re-checks what can change between
 * decision and effect: that the command is still the file resolved at grant time and that
 * the cwd is still a directory reached without symlinks. For git it first asks git which
 * config it would obey (git-hardening.ts) and refuses config that would run a program.
 */
import { promises as fsp } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { FsMount, MountHostGuard } from "../fs/index.js";
import { HostProxyError } from "../types.js";
import { canonicalizeExec } from "./canonicalize.js";
import type { CanonicalizeExecOptions } from "./canonicalize.js";
import type { CaptureOptions } from "./capture.js";
import { GIT_CONFIG_LIST_ARGS, gitArgvPrefix, gitEnvironment, refusedGitConfigKeys } from "./git-hardening.js";
import { scrubbedEnv } from "./hardening.js";
import { confinedPlan } from "./confine.js";
import { openShellMounts } from "./mounts.js";
import type { OpenShellMount } from "./mounts.js";
import { runProcess } from "./process.js";
import type { ProcessPlan } from "./process.js";
import { SHELL_DENIAL_REASONS as R, shellDenied } from "./reasons.js";
import { identityOf } from "./resolve.js";
import { probeSandbox } from "./sandbox.js";
import type { SandboxInfo } from "./sandbox.js";
import type { CanonicalExec, ExecRequest, ExecResult, ResolvedCommand, ResolvedShellGrant } from "./types.js";

export interface ShellProxyOptions extends CaptureOptions {
  /** The instance's mounts. Default: the grant's. */
  mounts?: readonly FsMount[];
  /** The runtime's forbidden mount roots; without it the fixed system roots still apply. */
  hostGuard?: MountHostGuard | undefined;
  /** A shared probe result (`probeSandbox`); without one the proxy probes `bwrapPath` itself. */
  sandbox?: SandboxInfo;
  /** Where bwrap is, when the proxy probes. Default /usr/bin/bwrap. */
  bwrapPath?: string;
  /** Between SIGTERM and SIGKILL on a timeout. Default 2 s. */
  killGraceMs?: number;
  maxStdinBytes?: number;
  /** Entries walked to cover sensitive names in the mounts before a run is refused. Default 100,000. */
  maxScanEntries?: number;
}

/** `clawhive:host/shell` for one instance. Methods throw `HostProxyError` only. */
export interface ShellProxy {
  readonly grant: ResolvedShellGrant;
  readonly mounts: readonly FsMount[];
  readonly sandbox: SandboxInfo;
  /** `canonicalizeExec` against this instance's grant and mounts. */
  canonicalize(request: ExecRequest): CanonicalExec;
  exec(canonical: CanonicalExec): Promise<ExecResult>;
  /** Waits for runs in flight, then releases the mount descriptors. Later calls fail with `io`. */
  close(): Promise<void>;
}

export async function createShellProxy(grant: ResolvedShellGrant, options: ShellProxyOptions = {}): Promise<ShellProxy> {
  const sandbox = options.sandbox ?? (await probeSandbox(options.bwrapPath === undefined ? {} : { bwrapPath: options.bwrapPath }));
  const mounts = await openShellMounts(options.mounts ?? grant.mounts, options.hostGuard);
  return new MountedShellProxy(grant, mounts, sandbox, options);
}

/** One process to start for a canonical exec (the exec itself, or git's config listing). */
interface Invocation {
  command: ResolvedCommand;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  stdin: Uint8Array | undefined;
}

const GIT_LISTING_MAX_BYTES = 1 << 20;

type AvailableSandbox = Extract<SandboxInfo, { available: true }>;

class MountedShellProxy implements ShellProxy {
  readonly grant: ResolvedShellGrant;
  readonly mounts: readonly FsMount[];
  readonly sandbox: SandboxInfo;
  readonly #open: readonly OpenShellMount[];
  readonly #options: ShellProxyOptions;
  #inFlight = 0;
  #drained: (() => void) | undefined;
  #closing: Promise<void> | undefined;

  constructor(grant: ResolvedShellGrant, open: OpenShellMount[], sandbox: SandboxInfo, options: ShellProxyOptions) {
    this.grant = grant;
    this.#open = Object.freeze(open);
    this.mounts = Object.freeze(open.map((m) => m.spec));
    this.sandbox = sandbox;
    this.#options = options;
  }

  canonicalize(request: ExecRequest): CanonicalExec {
    const options: CanonicalizeExecOptions = { grant: this.grant, mounts: this.mounts };
    if (this.#options.maxStdinBytes !== undefined) options.maxStdinBytes = this.#options.maxStdinBytes;
    return canonicalizeExec(request, options);
  }

  async exec(canonical: CanonicalExec): Promise<ExecResult> {
    if (this.#closing !== undefined) throw HostProxyError.io("shell proxy is closed: the instance was released");
    this.#checkOwn(canonical);
    if (this.grant.sandbox && !this.sandbox.available) {
      throw shellDenied(R.noSandbox, `${canonical.command.name}: this grant runs commands in the OS sandbox and bubblewrap is not usable here (${this.sandbox.reason}); install bubblewrap, or acknowledge shell-without-sandbox in the manifest`);
    }
    this.#inFlight++;
    try {
      await checkIdentity(canonical.command);
      await this.#checkCwd(canonical);
      if (canonical.command.program === "git") await this.#gitPreflight(canonical);
      const { command, args, env, stdin } = canonical;
      return await this.#run(canonical, { command, args, env, stdin }, canonical.timeoutMs);
    } finally {
      if (--this.#inFlight === 0) this.#drained?.();
    }
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#inFlight > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
      await Promise.all(this.#open.map((m) => m.root.close()));
    })();
    return this.#closing;
  }

  /** A canonical value from another grant or mount table would run what this one never decided. */
  #checkOwn(canonical: CanonicalExec): void {
    const sameMounts = canonical.mounts === this.mounts || JSON.stringify(canonical.mounts) === JSON.stringify(this.mounts);
    if (!this.grant.commands.includes(canonical.command) || !sameMounts) {
      throw HostProxyError.invalidInput("shell.exec: the request was canonicalised for another instance");
    }
  }

  async #checkCwd(canonical: CanonicalExec): Promise<void> {
    const cwd = canonical.cwd;
    if (cwd === undefined) return;
    const root = this.#open[cwd.mount.index];
    if (root === undefined) throw HostProxyError.io("shell.exec: mount table changed");
    let at = `/proc/self/fd/${root.root.fd}`;
    for (const segment of cwd.segments) {
      at = join(at, segment);
      const stats = await fsp.lstat(at).catch(() => undefined);
      if (stats === undefined) throw HostProxyError.notFound(`cwd ${cwd.guest}: no such directory`);
      // Inside the sandbox a symlink would resolve in the sandbox's view; outside it, on the
      // host. Refused either way, as the fs proxy refuses them.
      if (stats.isSymbolicLink()) throw shellDenied(R.cwdOutsideMount, `cwd ${cwd.guest}: passes through a symbolic link`);
      if (!stats.isDirectory()) throw HostProxyError.notFound(`cwd ${cwd.guest}: not a directory`);
    }
  }

  async #gitPreflight(canonical: CanonicalExec): Promise<void> {
    const invocation = { command: canonical.command, args: [...gitArgvPrefix(), ...GIT_CONFIG_LIST_ARGS], env: gitEnvironment(), stdin: undefined };
    const listing = await this.#run(canonical, invocation, 10_000, { headBytes: GIT_LISTING_MAX_BYTES, tailBytes: 0 });
    if (listing.exitCode !== 0 || listing.stdout.bytes > BigInt(GIT_LISTING_MAX_BYTES)) {
      throw HostProxyError.io(`git: the repository's config could not be read, so git was not run: ${listing.stderr.text.trim().slice(0, 300)}`);
    }
    const refused = refusedGitConfigKeys(listing.stdout.text);
    if (refused.length > 0) {
      throw shellDenied(R.dangerousConfig, `git: the repository config sets ${refused.join(", ")}, which makes git run a program; remove ${refused.length === 1 ? "it" : "them"} to use git here`);
    }
  }

  async #run(canonical: CanonicalExec, invocation: Invocation, timeoutMs: number, capture: CaptureOptions = this.#options): Promise<ExecResult> {
    const run = { timeoutMs, ...capture, ...(this.#options.killGraceMs === undefined ? {} : { killGraceMs: this.#options.killGraceMs }) };
    const sandbox = this.sandbox;
    if (sandbox.available) {
      return runProcess(await this.#sandboxed(sandbox, { canonical, invocation }), run);
    }
    const home = await mkdtemp(join(tmpdir(), "clawhive-shell-home-"));
    try {
      return await runProcess(await this.#direct(canonical, invocation, home), run);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }

  #sandboxed(sandbox: AvailableSandbox, run: { canonical: CanonicalExec; invocation: Invocation }): Promise<ProcessPlan> {
    const { canonical, invocation } = run;
    return confinedPlan(sandbox, this.#open, {
      path: invocation.command.path,
      args: invocation.args,
      env: invocation.env,
      cwd: canonical.cwd?.guest,
      stdin: invocation.stdin,
      maxScanEntries: this.#options.maxScanEntries,
    });
  }

  async #direct(canonical: CanonicalExec, invocation: Invocation, home: string): Promise<ProcessPlan> {
    // Where each mount's directory is now (it may have been renamed since creation): read
    // through the descriptor opened at creation, never from the configured path.
    const hosts = await Promise.all(this.#open.map((m) => fsp.realpath(`/proc/self/fd/${m.root.fd}`)));
    const cwd = canonical.cwd === undefined ? home : join(hosts[canonical.cwd.mount.index] ?? "/nonexistent", ...canonical.cwd.segments);
    const env = { ...invocation.env };
    if (invocation.command.program === "git") Object.assign(env, gitEnvironment({ ceilingDirectories: hosts.map((h) => dirname(h)) }));
    return { file: invocation.command.path, args: invocation.args, env: scrubbedEnv(home, env), cwd, stdin: invocation.stdin };
  }
}

async function checkIdentity(command: ResolvedCommand): Promise<void> {
  const now = await fsp.stat(command.path, { bigint: true }).catch(() => undefined);
  const then = command.identity;
  const same = now !== undefined && (Object.keys(then) as Array<keyof typeof then>).every((k) => identityOf(now)[k] === then[k]);
  if (!same) {
    throw shellDenied(R.commandChanged, `${command.name}: ${command.path} is no longer the file the grant resolved; start a new instance to use the new one`);
  }
}
