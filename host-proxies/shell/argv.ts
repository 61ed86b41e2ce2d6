/**
 * Decides one argv against one command rule. The shell proxy resolves the command to an
 * absolute path and runs it without a shell (no globbing, no `;`), so argv here is exactly
 * what the program receives.
 *
 * Rules, and why:
 * - `subcommands`: the FIRST argument must be one of them. Not "the first non-flag": global
 *   options before a subcommand are where injection lives (`git -c core.pager=sh status`,
 *   `git --exec-path=…`, `npm --prefix=… test`).
 * - `flags`: every argument that starts with `-` (before a `--` end-of-options marker) must be
 *   listed; `--name=value` is checked as `--name`. Combined short flags (`-rn`) must be
 *   listed as written: splitting them needs per-program knowledge we do not have.
 * - `flags` are checked on every argument before `--`, not only leading ones: GNU getopt
 *   permutes argv, so `rg pattern --pre=sh` is an option however late it comes.
 * - `deny`: glob patterns checked against EVERY argument, operands and post-`--` included:
 *   a rule cannot know how each program parses its argv, so it does not guess.
 */
import { globMatches } from "../glob.js";
import type { Decision } from "../types.js";
import { ALLOW, deny } from "../types.js";

export interface CommandRule {
  name: string;
  subcommands?: string[] | undefined;
  flags?: string[] | undefined;
  deny: string[];
}

// NUL cannot cross execve and other controls only confuse terminals and logs. Tab and newline
// stay allowed: commit messages hold them, and the audit log JSON-encodes argv anyway.
// eslint-disable-next-line no-control-regex -- the controls are exactly what we refuse
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

function flagName(arg: string): string {
  const eq = arg.indexOf("=");
  return arg.startsWith("--") && eq !== -1 ? arg.slice(0, eq) : arg;
}

/** `argv` without the command itself, against `rule`. */
export function matchArgs(rule: CommandRule, args: readonly string[]): Decision {
  const shown = [rule.name, ...args].map((a) => JSON.stringify(a)).join(" ");
  const bad = args.find((a) => CONTROL.test(a));
  if (bad !== undefined) return deny("shell.exec", "invalid-argument", `${shown}: an argument contains a control character`);
  if (rule.subcommands !== undefined) {
    const first = args[0];
    if (first === undefined || !rule.subcommands.includes(first)) {
      return deny(
        "shell.exec",
        "subcommand-not-allowed",
        `${shown}: the first argument must be one of ${rule.subcommands.join(", ")}`,
      );
    }
  }
  const denied = args.find((a) => rule.deny.some((p) => globMatches(p, a)));
  if (denied !== undefined) {
    return deny("shell.exec", "argument-denied", `${shown}: argument ${JSON.stringify(denied)} matches a deny pattern of ${rule.name}`);
  }
  if (rule.flags !== undefined) {
    const end = args.indexOf("--");
    const options = end === -1 ? args : args.slice(0, end);
    const flag = options.find((a) => a.startsWith("-") && a !== "-" && !rule.flags?.includes(flagName(a)));
    if (flag !== undefined) {
      return deny("shell.exec", "flag-not-allowed", `${shown}: flag ${JSON.stringify(flagName(flag))} is not allowed for ${rule.name}`);
    }
  }
  return ALLOW;
}
