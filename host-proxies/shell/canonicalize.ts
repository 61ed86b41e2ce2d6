/**
 * Guest exec request → the canonical value the effect acts on (STYLE habit 6). Pure except
 * that it reads nothing but its arguments: no disk, no clock.
 *
 * Order, first refusal wins: malformed argv (`invalid-input`), argv[0] as a path
 * (`command-path`), a command not granted (`command-not-allowed`), a program runner not
 * acknowledged (`dangerous-command`), a dangerous option (`dangerous-option`), cwd outside
 * the mounts (`cwd-outside-mount`), timeout above the limit (`timeout-limit`), stdin above
 * the cap (`size-cap`). The manifest's own argument rules are the policy's (catalogue
 * `matchArgs`), decided on the same argv before the effect.
 */
import { canonicalizeFsPath } from "../fs/index.js";
import type { CanonicalFsPath, FsMount } from "../fs/index.js";
import { HostProxyError } from "../types.js";
import { DANGEROUS_OPTIONS } from "./dangerous-options.js";
import { findDangerousGitArg } from "./git-options.js";
import { programArgs, programEnv } from "./hardening.js";
import { findDangerousOption } from "./option-scan.js";
import type { OptionHit } from "./option-scan.js";
import { SHELL_DENIAL_REASONS as R, shellDenied } from "./reasons.js";
import type { CanonicalExec, ExecRequest, ResolvedCommand, ResolvedShellGrant } from "./types.js";

export const MAX_ARGC = 1024;
/** Per argument; Linux refuses more than 128 KiB (MAX_ARG_STRLEN) anyway. */
export const MAX_ARG_BYTES = 64 * 1024;
export const MAX_ARGV_BYTES = 256 * 1024;
export const DEFAULT_MAX_STDIN_BYTES = 8 * 1024 * 1024;

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

export interface CanonicalizeExecOptions {
  grant: ResolvedShellGrant;
  /** The instance's mount table. Default: the grant's. */
  mounts?: readonly FsMount[];
  /** Default 8 MiB. */
  maxStdinBytes?: number;
}

export function canonicalizeExec(request: ExecRequest, options: CanonicalizeExecOptions): CanonicalExec {
  const argv = checkArgv(request.argv);
  const command = findCommand(argv[0] as string, options.grant);
  const rest = argv.slice(1);
  const hit = dangerousArg(command, rest);
  if (hit !== undefined) {
    throw shellDenied(R.dangerousOption, `${command.name}: ${JSON.stringify(hit.arg)} is refused (read as ${hit.option}): ${hit.why}`);
  }
  const mounts = options.mounts ?? options.grant.mounts;
  return Object.freeze({
    command,
    argv: Object.freeze(argv),
    args: Object.freeze(programArgs(command.program, rest)),
    env: Object.freeze(programEnv(command.program)),
    cwd: canonicalCwd(request.cwd, mounts),
    stdin: checkStdin(request.stdin, options.maxStdinBytes ?? DEFAULT_MAX_STDIN_BYTES),
    timeoutMs: checkTimeout(request.timeoutMs, options.grant),
    mounts,
  });
}

function checkArgv(argv: unknown): string[] {
  if (!Array.isArray(argv) || argv.length === 0) throw HostProxyError.invalidInput("shell.exec: argv must be a non-empty list of strings");
  if (argv.length > MAX_ARGC) throw HostProxyError.invalidInput(`shell.exec: argv has ${argv.length} entries; at most ${MAX_ARGC}`);
  let total = 0;
  for (const [i, arg] of argv.entries()) {
    if (typeof arg !== "string") throw HostProxyError.invalidInput(`shell.exec: argv[${i}] must be a string`);
    // NUL cannot cross execve (the program would see a shorter argument than was decided).
    if (arg.includes("\0")) throw HostProxyError.invalidInput(`shell.exec: argv[${i}] contains a NUL byte`);
    // Node encodes a lone surrogate as U+FFFD: the argument run would differ from the one decided.
    if (LONE_SURROGATE.test(arg)) throw HostProxyError.invalidInput(`shell.exec: argv[${i}] contains an unpaired UTF-16 surrogate`);
    const bytes = Buffer.byteLength(arg, "utf8");
    if (bytes > MAX_ARG_BYTES) throw HostProxyError.invalidInput(`shell.exec: argv[${i}] is ${bytes} bytes; at most ${MAX_ARG_BYTES}`);
    total += bytes;
  }
  if (total > MAX_ARGV_BYTES) throw HostProxyError.invalidInput(`shell.exec: argv totals ${total} bytes; at most ${MAX_ARGV_BYTES}`);
  return [...(argv as string[])];
}

function findCommand(name: string, grant: ResolvedShellGrant): ResolvedCommand {
  const granted = grant.commands.map((c) => c.name).join(", ");
  if (name.includes("/")) {
    throw shellDenied(R.commandPath, `argv[0] ${JSON.stringify(name)} is a path; use a granted command name (${granted})`);
  }
  const command = grant.commands.find((c) => c.name === name);
  if (command === undefined) throw shellDenied(R.commandNotAllowed, `${JSON.stringify(name)} is not a granted command (${granted})`);
  if (command.runsPrograms && !command.runnerAcknowledged) {
    throw shellDenied(
      R.dangerousCommand,
      `${name}: runs other programs given in its arguments or input; an operator must acknowledge it (allowProgramRunners) before it can be granted`,
    );
  }
  return command;
}

function dangerousArg(command: ResolvedCommand, args: readonly string[]): OptionHit | undefined {
  if (command.program === "git") return findDangerousGitArg(args);
  const rule = Object.hasOwn(DANGEROUS_OPTIONS, command.program) ? DANGEROUS_OPTIONS[command.program] : undefined;
  return rule === undefined ? undefined : findDangerousOption(args, rule);
}

function canonicalCwd(cwd: unknown, mounts: readonly FsMount[]): CanonicalFsPath | undefined {
  if (cwd !== undefined && typeof cwd !== "string") throw HostProxyError.invalidInput("shell.exec: cwd must be a string");
  const guest = cwd ?? mounts[0]?.guest;
  if (guest === undefined) return undefined;
  try {
    return canonicalizeFsPath(guest, mounts);
  } catch (err) {
    if (!(err instanceof HostProxyError) || err.hostError.tag !== "denied") {
      throw HostProxyError.invalidInput(`shell.exec: cwd: ${err instanceof Error ? err.message : String(err)}`);
    }
    throw shellDenied(R.cwdOutsideMount, `cwd ${JSON.stringify(guest.slice(0, 120))}: not inside a mount of this instance`);
  }
}

function checkTimeout(timeoutMs: unknown, grant: ResolvedShellGrant): number {
  if (timeoutMs === undefined) return grant.defaultTimeoutMs;
  if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw HostProxyError.invalidInput("shell.exec: timeout-ms must be a positive whole number of milliseconds");
  }
  if (timeoutMs > grant.maxTimeoutMs) {
    throw shellDenied(R.timeoutLimit, `timeout-ms ${timeoutMs} is above this grant's limit of ${grant.maxTimeoutMs}`);
  }
  return timeoutMs;
}

function checkStdin(stdin: unknown, maxBytes: number): Uint8Array | undefined {
  if (stdin === undefined) return undefined;
  if (!(stdin instanceof Uint8Array)) throw HostProxyError.invalidInput("shell.exec: stdin must be bytes (a Uint8Array)");
  if (stdin.byteLength > maxBytes) throw shellDenied(R.sizeCap, `stdin is ${stdin.byteLength} bytes; at most ${maxBytes}`);
  // A copy: the effect must act on the bytes decided here, whoever holds the original.
  return new Uint8Array(stdin);
}
