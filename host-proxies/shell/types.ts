/**
 * The shapes of `clawhive:host/shell` (wit/host/shell.wit) as jco lifts them — records are
 * camelCase objects, `option<T>` is `T | undefined`, `list<u8>` is `Uint8Array`, `u64` is
 * `bigint` — and the proxy's own resolved and canonical values.
 */
import type { CommandRule } from "./argv.js";
import type { CanonicalFsPath, FsMount } from "../fs/index.js";

/** `exec-request`. */
export interface ExecRequest {
  argv: readonly string[];
  cwd?: string | undefined;
  stdin?: Uint8Array | undefined;
  timeoutMs?: number | undefined;
}

/** `output`: a stream kept as head and tail, with what was dropped between them counted. */
export interface ExecOutput {
  text: string;
  bytes: bigint;
  linesDropped: bigint;
}

/** `exec-result`. */
export interface ExecResult {
  /** Undefined when the process was killed by a signal. */
  exitCode: number | undefined;
  signal: string | undefined;
  timedOut: boolean;
  stdout: ExecOutput;
  stderr: ExecOutput;
  durationMs: number;
}

/** What a binary was when the grant was resolved; a different file later is refused. */
export interface CommandIdentity {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

/** One granted command, resolved once (at grant time) to the file that will run. */
export interface ResolvedCommand {
  /** The bare name the manifest grants and argv[0] must equal, e.g. `git`. */
  name: string;
  /** Absolute path with symlinks resolved, e.g. `/usr/bin/git`. */
  path: string;
  /**
   * Which program this is for the dangerous-option table: the name if the table knows it,
   * else the resolved file's base name (so `awk` → `mawk` and a renamed `find` are caught).
   */
  program: string;
  /** The program runs other programs named in its arguments or input (shells, `xargs`, …). */
  runsPrograms: boolean;
  /** The operator acknowledged `runsPrograms` for this command (`allowProgramRunners`). */
  runnerAcknowledged: boolean;
  identity: CommandIdentity;
  /** The manifest's argument rule, decided by the policy (catalogue `matchArgs`), kept for reference. */
  rule: CommandRule;
}

/** A `ShellResource` with every command resolved; fixed for the instance's life. */
export interface ResolvedShellGrant {
  commands: readonly ResolvedCommand[];
  /** The grant's mounts (the instance may be bound with a narrower table). */
  mounts: readonly FsMount[];
  /** False: the manifest acknowledged `shell-without-sandbox`; commands may run unconfined. */
  sandbox: boolean;
  /** The directories searched, in order, when the grant was resolved. */
  searchPath: readonly string[];
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
}

/**
 * One exec after canonicalisation and the proxy's own checks: the only value the effect acts
 * on (STYLE habit 6). `argv` is what the guest asked for and what the policy decided; `args`
 * is exactly what the program receives after `command.path` (the proxy's hardening included).
 */
export interface CanonicalExec {
  command: ResolvedCommand;
  argv: readonly string[];
  args: readonly string[];
  /** Variables added to the scrubbed base for this program (e.g. git's). */
  env: Readonly<Record<string, string>>;
  /** Undefined only when there is no mount: the command runs in its private, empty HOME. */
  cwd: CanonicalFsPath | undefined;
  stdin: Uint8Array | undefined;
  timeoutMs: number;
  mounts: readonly FsMount[];
}
