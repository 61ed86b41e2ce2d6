/**
 * The default dangerous-option table: options of common programs that run another program,
 * write somewhere other than the operands, or change configuration. They are refused even when
 * the manifest's argument rules allow them (reason `dangerous-option`): a manifest author who
 * grants `rg` means "search", and GTFOBins (https://gtfobins.github.io) lists how each of these
 * turns a search, a sort or an archive into a shell. git has its own module (git-options.ts).
 *
 * Programs that exist to run other programs — shells, interpreters, wrappers such as `xargs`,
 * `env`, `timeout`, privilege tools, editors and pagers with shell escapes, build tools — are
 * refused as commands (reason `dangerous-command`) unless the operator acknowledges them by
 * name (`allowProgramRunners`): no option table can make `sh -c` or `awk 'BEGIN{system(…)}'`
 * safe. They still run in the sandbox when acknowledged.
 *
 * sed is not in either list: the proxy runs GNU sed with `--sandbox`, which rejects the `e`,
 * `r` and `w` commands and the `s///e` and `s///w` flags inside the script (the script is an
 * operand, so no option table could see them). `-i` stays allowed: it writes only the named
 * operands, and a read-only mount refuses that write at the kernel.
 */
import type { OptionRule } from "./option-scan.js";

export const DANGEROUS_OPTIONS: Readonly<Record<string, OptionRule>> = Object.freeze({
  // ripgrep: --pre runs a preprocessor per file; -z/--search-zip spawns decompressors;
  // --hostname-bin runs a program to learn the hostname (ripgrep 14).
  rg: { long: ["--pre", "--pre-glob", "--hostname-bin", "--search-zip"], short: "z", why: "it runs another program" },
  // find: the action primaries run programs, delete, or write to a file of the caller's choosing.
  find: {
    words: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"],
    scanAfterEnd: true,
    why: "it runs a program, deletes, or writes a file",
  },
  // sort: -o writes any file; --compress-program runs one; -T puts temp files anywhere.
  sort: {
    long: ["--output", "--compress-program", "--temporary-directory"],
    short: "oT",
    why: "it writes elsewhere or runs a program",
  },
  // GNU tar: every option that runs a program, plus -P (keep absolute and `..` member
  // names: extraction anywhere) and the ones that write side files.
  tar: {
    long: [
      "--to-command", "--use-compress-program", "--checkpoint-action", "--info-script",
      "--new-volume-script", "--rsh-command", "--rmt-command", "--index-file", "--volno-file",
      "--absolute-names",
    ],
    exact: ["--checkpoint"],
    short: "IFP",
    bundledFirst: true,
    why: "it runs a program, or writes outside the working tree",
  },
  // zip: -T tests by running unzip, -TT/--unzip-command names the program.
  zip: { long: ["--unzip-command", "--test"], short: "T", why: "it runs another program" },
  // rsync: -e/--rsh and --rsync-path name the programs it starts.
  rsync: { long: ["--rsh", "--rsync-path"], short: "e", why: "it runs another program" },
});

/**
 * Commands that run programs named in their arguments or input. A name matches if the granted
 * name or the resolved file's base name does (`sh` → `dash`, `awk` → `mawk`).
 */
const RUNNER_NAMES: ReadonlySet<string> = new Set([
  // shells and multi-call binaries
  "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "busybox", "toybox",
  // interpreters (versioned names are matched by RUNNER_PATTERNS)
  "awk", "gawk", "mawk", "nawk", "original-awk", "irb", "node", "nodejs", "deno", "bun", "luajit",
  "wish", "expect", "Rscript", "R", "julia", "guile", "sbcl", "ghci", "ocaml", "java", "jshell",
  "m4", "dc", "gdb", "sqlite3", "psql", "mysql", "gnuplot",
  // wrappers that run the rest of argv
  "env", "xargs", "nice", "ionice", "chrt", "taskset", "timeout", "nohup", "setsid", "stdbuf", "time",
  "watch", "flock", "chroot", "unshare", "nsenter", "setpriv", "capsh", "runuser", "su", "sudo", "doas",
  "pkexec", "sg", "newgrp", "strace", "ltrace", "valgrind", "script", "parallel", "run-parts",
  "start-stop-daemon", "systemd-run", "bwrap", "firejail", "docker", "podman", "crontab", "at", "batch",
  // editors and pagers with shell escapes; remote shells
  "vi", "vim", "view", "vimdiff", "nvim", "ex", "ed", "red", "emacs", "nano", "less", "more", "most", "pg",
  "man", "ssh", "scp", "sftp", "rsh", "telnet", "nc", "ncat", "netcat", "socat",
  // build tools run the project's own scripts; patch runs ed for ed-style diffs (CVE-2018-1000156)
  "make", "gmake", "cmake", "ninja", "npm", "npx", "yarn", "pnpm", "cargo", "go", "pip", "pip3",
  "gcc", "g++", "cc", "c++", "clang", "clang++", "patch",
]);

const RUNNER_PATTERNS: readonly RegExp[] = [
  /^python[0-9.]*$/, /^pypy[0-9.]*$/, /^perl[0-9.]*$/, /^ruby[0-9.]*$/, /^php[0-9.]*$/,
  /^lua[0-9.]*$/, /^tclsh[0-9.]*$/, /^pip[0-9.]*$/,
];

/** Whether `name` (a command name or a binary's base name) runs other programs. */
export function isProgramRunner(name: string): boolean {
  return RUNNER_NAMES.has(name) || RUNNER_PATTERNS.some((p) => p.test(name));
}

/** The table key for a command: its name if known, else the resolved binary's base name. */
export function programKey(name: string, basename: string): string {
  if (name === "git" || Object.hasOwn(DANGEROUS_OPTIONS, name) || isProgramRunner(name) || name === "sed") return name;
  return basename;
}
