/**
 * git's argv, read the way git reads it: global options, then one subcommand, then that
 * subcommand's options. Three rules, and why:
 * - Global options (before the subcommand) are an allow-list of switches that take no value.
 *   `-c`, `--config-env`, `-C`, `--git-dir`, `--work-tree`, `--exec-path` and `--namespace`
 *   point git at other config, repositories or programs: the classic git argument injections
 *   (`-c core.sshCommand=…`, `--upload-pack=…`, as in GitPython's CVE-2022-24439; GTFOBins
 *   "git").
 * - The subcommand must be a builtin from a fixed list. An alias (`alias.x = !cmd`) or a
 *   `git-<name>` program found on PATH runs arbitrary code, and git resolves builtins before
 *   aliases, so a builtin name cannot be hijacked by a planted alias. Builtins that exist to run
 *   other programs (difftool, mergetool, filter-branch, help → man, maintenance → cron,
 *   imap-send's tunnel, hook) are left off.
 * - After the subcommand, options that run programs or write elsewhere are refused for every
 *   subcommand, plus a few per subcommand (`-o` is harmless for `commit` but writes a file for
 *   `archive`; `-x` runs a command for `rebase`).
 */
import type { OptionHit, OptionRule } from "./option-scan.js";
import { findDangerousOption } from "./option-scan.js";

const GLOBAL_SWITCHES: ReadonlySet<string> = new Set([
  "--no-pager", "-P", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs",
  "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--bare", "--version",
]);

const BUILTINS: ReadonlySet<string> = new Set([
  "add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle", "cat-file",
  "check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout-index",
  "cherry", "cherry-pick", "clean", "clone", "column", "commit", "commit-graph", "commit-tree",
  "config", "count-objects", "describe", "diff", "diff-files", "diff-index", "diff-tree", "fetch",
  "for-each-ref", "format-patch", "fsck", "gc", "grep", "hash-object", "init", "log", "ls-files",
  "ls-remote", "ls-tree", "merge", "merge-base", "merge-file", "merge-tree", "mktag", "mktree",
  "mv", "name-rev", "notes", "pull", "push", "range-diff", "read-tree", "rebase", "reflog", "remote",
  "repack", "replace", "reset", "restore", "rev-list", "rev-parse", "revert", "rm", "shortlog",
  "show", "show-branch", "show-ref", "sparse-checkout", "stash", "status", "stripspace", "submodule",
  "switch", "symbolic-ref", "tag", "update-index", "update-ref", "var", "verify-commit", "verify-pack",
  "verify-tag", "version", "whatchanged", "worktree", "write-tree",
]);

const WHY = "it makes git run another program, write elsewhere, or read other config";

const EVERY_SUBCOMMAND: OptionRule = {
  long: [
    "--output", "--ext-diff", "--textconv", "--upload-pack", "--receive-pack", "--exec",
    "--open-files-in-pager", "--help", "--template", "--separate-git-dir", "--git-dir",
    "--work-tree", "--exec-path", "--config", "--config-env",
  ],
  why: WHY,
};

const PER_SUBCOMMAND: Readonly<Record<string, Omit<OptionRule, "why">>> = {
  archive: { long: ["--remote"], short: "o" },
  "cat-file": { long: ["--filters"] },
  clone: { short: "cu" },
  "format-patch": { long: ["--output-directory"], short: "o" },
  grep: { short: "O" },
  rebase: { short: "x" },
  config: { long: ["--global", "--system", "--edit"] },
  submodule: { operands: ["foreach"] },
  bisect: { operands: ["run"] },
};

/** The first part of a git argv (without `git`) that is refused, or undefined. */
export function findDangerousGitArg(args: readonly string[]): OptionHit | undefined {
  let i = 0;
  for (; i < args.length && (args[i] ?? "").startsWith("-"); i++) {
    const arg = args[i] ?? "";
    if (!GLOBAL_SWITCHES.has(arg)) return { arg, option: arg, why: "only value-less global switches such as --no-pager may come before the subcommand" };
  }
  const subcommand = args[i];
  if (subcommand === undefined) return undefined;
  if (!BUILTINS.has(subcommand)) {
    return { arg: subcommand, option: subcommand, why: "not a git builtin this proxy runs (aliases and git-<name> programs run other programs)" };
  }
  const rest = args.slice(i + 1);
  const extra = PER_SUBCOMMAND[subcommand];
  return findDangerousOption(rest, EVERY_SUBCOMMAND) ?? (extra === undefined ? undefined : findDangerousOption(rest, { ...extra, why: WHY }));
}
