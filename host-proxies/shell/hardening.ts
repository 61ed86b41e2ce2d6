/**
 * Per-program additions to argv and environment, applied by the proxy to every run. They only
 * take abilities away, so a program the table does not know gets none.
 * - git: see git-hardening.ts.
 * - sed: GNU sed's `--sandbox` rejects the `e`/`r`/`w` commands and `s///e`/`s///w` in the
 *   script, which no option table can see (the script is an operand). A sed without
 *   `--sandbox` (busybox, BSD) fails on it: fail closed.
 * - tar: `TAR_OPTIONS=--force-local` keeps an archive name with a colon (`host:file`) local;
 *   otherwise GNU tar runs rsh/ssh to fetch it. The variable, not an argument, because an
 *   argument before tar's old-style first cluster (`tar xf a.tar`) would break it.
 */
import { gitArgvPrefix, gitEnvironment } from "./git-hardening.js";

/** What the program receives after its path, given the guest's arguments (argv without argv[0]). */
export function programArgs(program: string, args: readonly string[]): string[] {
  if (program === "git") return [...gitArgvPrefix(), ...args];
  if (program === "sed") return ["--sandbox", ...args];
  return [...args];
}

/** Variables the program gets on top of the scrubbed base. */
export function programEnv(program: string): Record<string, string> {
  if (program === "git") return gitEnvironment();
  if (program === "tar") return { TAR_OPTIONS: "--force-local" };
  return {};
}

/**
 * The whole environment a child sees: nothing of the runtime's own (no tokens, no
 * `LD_PRELOAD`, no `GIT_*`, `GREP_OPTIONS`, `RIPGREP_CONFIG_PATH`, `LESSOPEN`, `BASH_ENV`,
 * all of which make a permitted program load or run something else).
 */
export function scrubbedEnv(home: string, extra: Readonly<Record<string, string>>): Record<string, string> {
  return { ...extra, PATH: "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8", TERM: "dumb" };
}
