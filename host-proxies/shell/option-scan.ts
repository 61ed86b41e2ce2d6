/**
 * Finds the first dangerous option in an argv, the way the program's own parser would see it,
 * erring towards "dangerous": a value that merely looks like a dangerous option is refused too
 * (`grep -e --pre`), because telling values from options needs per-program arity tables and a
 * wrong guess the other way is an argument injection (the CWE-88 / GTFOBins class: a permitted
 * program told by one argument to run, write or load something else).
 *
 * How each argument is read, and why:
 * - `--` ends options, except for programs whose expression follows it (`find -- . -exec`).
 * - Every argument before `--` is scanned, not only leading ones: GNU getopt permutes argv,
 *   so `rg pattern --pre=sh` is an option however late it comes.
 * - `--name=value` is `--name`. A long option also matches when the argument is a prefix of
 *   it (`--use=sh` for tar's `--use-compress-program`, `--comp` for sort's
 *   `--compress-program`): getopt_long and git's parse-options accept unique abbreviations.
 *   An exact name the rule lists as `exact` (tar's harmless `--checkpoint`) is not one.
 * - `-abc` is a cluster: any listed letter anywhere in it counts, which also catches an
 *   attached value (`sort -ro/etc/x`: `o`). `bundledFirst` reads a first argument without
 *   a dash as a cluster too (tar's old style, `tar Ixf sh a.tar`).
 * - `words` are whole arguments compared exactly (`find`'s single-dash `-exec`).
 * - `operands` are exact non-option words (`git submodule foreach`).
 */

export interface OptionRule {
  /** Long options, with their dashes: `--pre`. */
  long?: readonly string[];
  /** Exact long names that shadow the abbreviation rule (they are options of their own). */
  exact?: readonly string[];
  /** Short option letters: `"zT"`. */
  short?: string;
  /** Whole arguments: `-exec`. */
  words?: readonly string[];
  /** Non-option arguments that are themselves dangerous: `foreach`. */
  operands?: readonly string[];
  /** `--` does not end the expression (find). */
  scanAfterEnd?: boolean;
  /** The first argument is a cluster of short options even without a dash (tar). */
  bundledFirst?: boolean;
  /** Why these are dangerous, as a clause for the denial message: `it runs another program`. */
  why: string;
}

export interface OptionHit {
  /** The argument as given. */
  arg: string;
  /** The dangerous option it was read as, e.g. `--pre` or `-z`. */
  option: string;
  why: string;
}

/** The first argument of `args` that `rule` refuses, or undefined. */
export function findDangerousOption(args: readonly string[], rule: OptionRule): OptionHit | undefined {
  for (const [i, arg] of args.entries()) {
    if (arg === "--" && rule.scanAfterEnd !== true) return undefined;
    const option = classify(arg, rule, i === 0);
    if (option !== undefined) return { arg, option, why: rule.why };
  }
  return undefined;
}

function classify(arg: string, rule: OptionRule, first: boolean): string | undefined {
  if (rule.words?.includes(arg) === true) return arg;
  if (arg.startsWith("--") && arg.length > 2) return longHit(arg, rule);
  if (arg.startsWith("-") && arg.length > 1) return clusterHit(arg.slice(1), rule);
  if (first && rule.bundledFirst === true) return clusterHit(arg, rule);
  if (rule.operands?.includes(arg) === true) return arg;
  return undefined;
}

function longHit(arg: string, rule: OptionRule): string | undefined {
  const eq = arg.indexOf("=");
  const name = eq === -1 ? arg : arg.slice(0, eq);
  if (rule.exact?.includes(name) === true) return undefined;
  return rule.long?.find((option) => option === name || (name.length >= 3 && option.startsWith(name)));
}

function clusterHit(cluster: string, rule: OptionRule): string | undefined {
  const short = rule.short ?? "";
  for (const letter of cluster) {
    if (short.includes(letter)) return `-${letter}`;
  }
  return undefined;
}
