/**
 * `shell.exec`: which programs a plugin may run, with which arguments, in which directories.
 * Resolving a command name to an absolute path (a fixed PATH, no `./x`) is the shell proxy's;
 * here a command is a bare name and `matches` decides the argv the proxy will pass.
 */
import * as v from "valibot";
import { strictObject } from "./strict.js";
import { canonicalizeFsPath } from "../../../host-proxies/fs/index.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { globCovers } from "./glob.js";
import { mountsCover, mountSchema } from "./mounts.js";
import { patternList, unique } from "./names.js";
import { matchArgs } from "../../../host-proxies/shell/argv.js";
import type { CommandRule } from "../../../host-proxies/shell/argv.js";
import type { ShellResource } from "../../../host-proxies/shell/resource.js";
import type { CapabilityEntry, Coverage, Decision } from "./types.js";
import { COVERED, deny, firstUncovered, notCovered, under } from "./types.js";

const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/;

const CommandRuleSchema = strictObject({
  name: v.pipe(v.string(), v.regex(COMMAND_NAME, "expected a bare command name like git (no path: the shell proxy resolves it)")),
  subcommands: v.pipe(
    v.optional(v.pipe(patternList("subcommand", 100), v.check((l) => l.every((s) => !s.startsWith("-") && !s.includes("*")), "subcommands are literal words, not flags or patterns"))),
    v.description("when present, the first argument must be one of these"),
  ),
  flags: v.pipe(
    v.optional(v.pipe(patternList("flag", 100), v.check((l) => l.every((s) => /^--?[^-=*]/.test(s) && !s.includes("=")), "flags start with '-' and hold no '=' or '*'"))),
    v.description("when present, every argument starting with '-' must be one of these (--name=value is checked as --name)"),
  ),
  deny: v.pipe(v.optional(patternList("deny pattern"), () => []), v.description("globs ('*' = anything) no argument may match")),
  runs_programs: v.pipe(
    v.optional(v.boolean(), false),
    v.description("the command runs other programs (npm, make, interpreters): the shell proxy refuses such commands unless this is set"),
  ),
});

const ShellResourceSchema = strictObject({
  mounts: v.pipe(
    v.optional(v.array(mountSchema(["ro", "rw"], "whether commands may change files under the mount")), () => []),
    v.description("directories commands see and may run in (cwd)"),
  ),
  commands: v.pipe(
    v.array(CommandRuleSchema),
    v.minLength(1, "expected at least one command"),
    v.check((cs) => unique(cs.map((c) => c.name)), "each command may have one rule"),
  ),
  sandbox: v.pipe(v.optional(v.boolean(), true), v.description("false runs commands outside the OS sandbox (a dangerous combination: shell-without-sandbox)")),
});
export type { ShellResource } from "../../../host-proxies/shell/resource.js";
// The schema's output must be exactly the proxy's resource type, or the build fails here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _resourceShape: Same<v.InferOutput<typeof ShellResourceSchema>, ShellResource> = true;
void _resourceShape;

/** One program run: argv[0] is the command name as the plugin asked, `cwd` a guest path. */
export interface ShellRequest {
  argv: readonly string[];
  cwd?: string | undefined;
}

function listCovers(outer: readonly string[] | undefined, inner: readonly string[] | undefined, path: string): Coverage {
  if (outer === undefined) return COVERED;
  if (inner === undefined) return notCovered(path, `the wider grant allows only ${JSON.stringify(outer)}`);
  const i = inner.findIndex((x) => !outer.includes(x));
  return i === -1 ? COVERED : notCovered(`${path}[${i}]`, `${JSON.stringify(inner[i])} is not allowed by the wider grant`);
}

/** A narrower rule must deny at least what the wider one denies. */
function denyCovers(outer: readonly string[], inner: readonly string[]): Coverage {
  const missing = outer.find((d) => !inner.some((e) => globCovers(e, d)));
  return missing === undefined ? COVERED : notCovered("deny", `must still deny ${JSON.stringify(missing)}`);
}

function commandCovers(outer: CommandRule, inner: CommandRule): Coverage {
  return firstUncovered(
    () => listCovers(outer.subcommands, inner.subcommands, "subcommands"),
    () => listCovers(outer.flags, inner.flags, "flags"),
    () => denyCovers(outer.deny, inner.deny),
  );
}

function shellCovers(outer: ShellResource, inner: ShellResource): Coverage {
  if (!inner.sandbox && outer.sandbox) return notCovered("sandbox", "the wider grant runs commands sandboxed");
  const mounts = mountsCover(outer.mounts, inner.mounts);
  if (!mounts.covered) return mounts;
  for (const [i, rule] of inner.commands.entries()) {
    const wider = outer.commands.find((c) => c.name === rule.name);
    if (wider === undefined) return notCovered(`commands[${i}].name`, `${rule.name} is not a command of the wider grant`);
    const coverage = under(`commands[${i}]`, commandCovers(wider, rule));
    if (!coverage.covered) return coverage;
  }
  return COVERED;
}

function cwdDecision(grant: ShellResource, cwd: string): Decision | undefined {
  try {
    canonicalizeFsPath(cwd, grant.mounts);
    return undefined;
  } catch (err) {
    if (!(err instanceof HostProxyError)) throw err;
    return deny("shell.exec", "cwd-outside-mount", `cwd ${JSON.stringify(cwd)}: not inside a granted shell mount`);
  }
}

function shellMatches(grant: ShellResource, request: ShellRequest): Decision {
  const [command, ...args] = request.argv;
  if (command === undefined) return deny("shell.exec", "invalid-argument", "argv is empty");
  const rule = grant.commands.find((c) => c.name === command);
  if (rule === undefined) {
    return deny("shell.exec", "command-not-allowed", `${JSON.stringify(command)} is not a granted command (${grant.commands.map((c) => c.name).join(", ")})`);
  }
  if (request.cwd !== undefined) {
    const refused = cwdDecision(grant, request.cwd);
    if (refused !== undefined) return refused;
  }
  return matchArgs(rule, args);
}

export const shellExec: CapabilityEntry<ShellResource, ShellRequest> = {
  name: "shell.exec",
  description: "Run the granted programs with arguments that pass their rules, in the granted directories.",
  resource: ShellResourceSchema,
  defaultRisk: "unsafe",
  riskReason: "a program can do anything its arguments and files let it (DESIGN: shell Unsafe); each run needs its own approval",
  covers: shellCovers,
  matches: shellMatches,
};
