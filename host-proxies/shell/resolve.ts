/**
 * Grant time: each granted command name becomes one absolute, symlink-free path, searched on a
 * fixed PATH (never the runtime's or the guest's), and the file's identity is recorded. The
 * proxy refuses to run a different file later (`command-changed`), so neither a PATH change
 * nor a swapped binary changes what an instance runs ("fixed at creation", DESIGN.md).
 *
 * A binary that someone other than root or the runtime's user could replace (world-writable
 * file or directory, foreign owner) is refused here: its identity would be theirs to choose.
 */
import { constants, promises as fsp } from "node:fs";
import type { BigIntStats } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { InvalidInputError } from "../../runtime/errors.js";
import type { ShellResource } from "./resource.js";
import { isProgramRunner, programKey } from "./dangerous-options.js";
import type { CommandIdentity, ResolvedCommand, ResolvedShellGrant } from "./types.js";

export const DEFAULT_SEARCH_PATH = "/usr/local/bin:/usr/bin:/bin";
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_TIMEOUT_MS = 120_000;

export interface ResolveShellGrantOptions {
  /** Colon-separated absolute directories searched in order. Default `/usr/local/bin:/usr/bin:/bin`. */
  searchPath?: string;
  /** Timeout when the request names none. Default 30 s. */
  defaultTimeoutMs?: number;
  /** The largest timeout a request may ask for. Default 120 s. */
  maxTimeoutMs?: number;
  /**
   * Command names the operator accepts although they run other programs (shells, interpreters,
   * `xargs`…). Everything else on the runner list is refused at exec (`dangerous-command`).
   */
  allowProgramRunners?: readonly string[];
}

/** Resolves every command of `resource`; throws `InvalidInputError` naming the first that fails. */
export async function resolveShellGrant(resource: ShellResource, options: ResolveShellGrantOptions = {}): Promise<ResolvedShellGrant> {
  const searchPath = parseSearchPath(options.searchPath ?? DEFAULT_SEARCH_PATH);
  const defaultTimeoutMs = checkMs(options.defaultTimeoutMs, "defaultTimeoutMs", DEFAULT_TIMEOUT_MS);
  const maxTimeoutMs = checkMs(options.maxTimeoutMs, "maxTimeoutMs", DEFAULT_MAX_TIMEOUT_MS);
  if (defaultTimeoutMs > maxTimeoutMs) {
    throw new InvalidInputError("defaultTimeoutMs: must not exceed maxTimeoutMs", { field: "defaultTimeoutMs" });
  }
  const acknowledged = new Set(options.allowProgramRunners ?? []);
  const commands: ResolvedCommand[] = [];
  for (const [index, rule] of resource.commands.entries()) {
    const field = `commands[${index}].name`;
    const path = await findOnPath(rule.name, searchPath, field);
    const stats = await checkReplaceable(path, rule.name, field);
    const program = programKey(rule.name, basename(path));
    const runsPrograms = isProgramRunner(rule.name) || isProgramRunner(basename(path));
    commands.push(Object.freeze({
      name: rule.name,
      path,
      program,
      runsPrograms,
      runnerAcknowledged: runsPrograms && acknowledged.has(rule.name),
      identity: identityOf(stats),
      rule: Object.freeze({ ...rule }),
    }));
  }
  return Object.freeze({
    commands: Object.freeze(commands),
    mounts: Object.freeze(resource.mounts.map((m) => Object.freeze({ ...m }))),
    sandbox: resource.sandbox,
    searchPath: Object.freeze(searchPath),
    defaultTimeoutMs,
    maxTimeoutMs,
  });
}

/** The identity a resolved file must still have when it runs. */
export function identityOf(stats: BigIntStats): CommandIdentity {
  return { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs };
}

function parseSearchPath(searchPath: string): string[] {
  const dirs = searchPath.split(":");
  if (dirs.some((d) => !isAbsolute(d) || d.includes("\0"))) {
    // An empty or relative entry means "the current directory": the `./x` hijack (CWE-427).
    throw new InvalidInputError(`searchPath: every entry must be an absolute directory, got ${JSON.stringify(searchPath)}`, { field: "searchPath" });
  }
  return dirs;
}

function checkMs(value: number | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1 || value > 0xffff_ffff) {
    throw new InvalidInputError(`${field}: must be a whole number of milliseconds between 1 and 2^32-1`, { field });
  }
  return value;
}

async function findOnPath(name: string, searchPath: readonly string[], field: string): Promise<string> {
  // The catalogue's schema already insists on a bare name; checked again because a name with
  // a slash would be joined into a path outside the search directories.
  if (name.includes("/") || name === "." || name === ".." || name.length === 0) {
    throw new InvalidInputError(`${field}: ${JSON.stringify(name)} is not a bare command name`, { field });
  }
  for (const dir of searchPath) {
    const candidate = join(dir, name);
    try {
      const real = await fsp.realpath(candidate);
      const stats = await fsp.stat(real);
      if (!stats.isFile()) continue;
      await fsp.access(real, constants.X_OK);
      return real;
    } catch {
      continue;
    }
  }
  throw new InvalidInputError(
    `${field}: command ${JSON.stringify(name)} was not found as an executable file on ${searchPath.join(":")}; install it or remove it from the grant`,
    { field },
  );
}

async function checkReplaceable(path: string, name: string, field: string): Promise<BigIntStats> {
  const [file, dir] = await Promise.all([fsp.stat(path, { bigint: true }), fsp.stat(dirname(path), { bigint: true })]);
  const uid = BigInt(process.getuid?.() ?? 0);
  for (const [what, stats] of [["file", file], ["directory", dir]] as const) {
    if ((stats.mode & 0o002n) !== 0n || (stats.uid !== 0n && stats.uid !== uid)) {
      throw new InvalidInputError(
        `${field}: ${name} resolves to ${path}, whose ${what} another user can replace; install it somewhere only root or the runtime's user can write`,
        { field },
      );
    }
  }
  return file;
}
