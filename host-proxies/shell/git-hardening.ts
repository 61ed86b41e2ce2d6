/**
 * What the proxy adds to every git run, and the config it refuses to run under.
 *
 * The threat: a plugin writes `.git/config` (through `fs.write`, or a permitted `git config`)
 * and then runs a permitted `git status`; git obeys the config it finds and runs what it names
 * (the "writes to config that a permitted command later obeys" case; CVE-2022-24765 and
 * CVE-2024-32002 are the same class arriving through a repository).
 *
 * Three layers:
 * 1. Command-line config (`-c`) overrides repository config for last-one-wins keys: fsmonitor,
 *    hooks, pager, editors, ssh, askpass, credential helpers (the empty value resets the
 *    list), gpg programs, submodule recursion. `--no-pager` also beats `pager.<cmd>`.
 * 2. The environment: `GIT_ALLOW_PROTOCOL=` (empty) allows no transport at all and beats every
 *    `protocol.<name>.allow` in config — `-c protocol.allow=never` alone does not: a repository's
 *    `protocol.ext.allow=always` outranks it and `ext::sh -c …` runs (checked in the tests).
 * 3. Keys that `-c` cannot neutralise are refused before the real run: driver keys
 *    (`filter.<x>.clean`, `diff.<x>.textconv`, `merge.<x>.driver`, …) are named by attributes
 *    and cannot be listed in advance, and `diff.external` breaks every diff when set empty
 *    (git then tries to run ""). The check asks git itself (`git config --list --show-scope -z`,
 *    in the same sandbox and cwd): a second parser of git's config format would disagree with
 *    git somewhere, and that disagreement would be the bypass.
 */

/** `-c` pairs prepended to every git run (after `--no-pager`). */
export const GIT_CONFIG_OVERRIDES: readonly string[] = Object.freeze([
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.pager=cat",
  "core.editor=false",
  "sequence.editor=false",
  "core.sshCommand=false",
  "core.askPass=false",
  "core.attributesFile=/dev/null",
  "credential.helper=",
  "gpg.program=false",
  "gpg.openpgp.program=false",
  "gpg.x509.program=false",
  "gpg.ssh.program=false",
  "log.showSignature=false",
  "protocol.allow=never",
  "submodule.recurse=false",
  // Without this, status and diff start `git status` inside each submodule, whose own config
  // the pre-flight check never read.
  "diff.ignoreSubmodules=all",
  // A bare repository planted inside the working tree is not discovered implicitly.
  "safe.bareRepository=explicit",
]);

/** The arguments placed between the git binary and the guest's own arguments. */
export function gitArgvPrefix(): string[] {
  return ["--no-pager", ...GIT_CONFIG_OVERRIDES.flatMap((pair) => ["-c", pair])];
}

/** Variables git gets on top of the scrubbed base environment. */
export function gitEnvironment(options: { ceilingDirectories?: readonly string[] } = {}): Record<string, string> {
  const env: Record<string, string> = {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ALLOW_PROTOCOL: "",
  };
  // Outside the sandbox, repository discovery would otherwise walk above the mount.
  if (options.ceilingDirectories !== undefined && options.ceilingDirectories.length > 0) {
    env.GIT_CEILING_DIRECTORIES = options.ceilingDirectories.join(":");
  }
  return env;
}

/** The git arguments of the pre-flight config listing (after `gitArgvPrefix()`). */
export const GIT_CONFIG_LIST_ARGS: readonly string[] = Object.freeze(["config", "--list", "--show-scope", "-z"]);

const DRIVER_KEYS: Readonly<Record<string, readonly string[]>> = {
  filter: ["clean", "smudge", "process"],
  diff: ["command", "textconv"],
  merge: ["driver"],
  difftool: ["cmd", "path"],
  mergetool: ["cmd", "path"],
  remote: ["uploadpack", "receivepack", "vcs"],
};

/** Whether one config entry (git's lower-cased section and name) names a program to run. */
export function isRefusedGitConfig(key: string, value: string | undefined): boolean {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first === -1) return false;
  const section = key.slice(0, first);
  const name = key.slice(last + 1);
  if (first === last) {
    return (section === "diff" && name === "external") || (section === "core" && (name === "gitproxy" || name === "alternaterefscommand"));
  }
  const subsection = key.slice(first + 1, last);
  if (section === "submodule" && name === "update") return value?.trimStart().startsWith("!") === true;
  if (section === "gpg" && subsection === "ssh" && name === "defaultkeycommand") return true;
  return DRIVER_KEYS[section]?.includes(name) === true;
}

/**
 * The refused keys in `git config --list --show-scope -z` output (`scope NUL key LF value NUL`,
 * no LF for a valueless key). Entries from the command line are ours and skipped.
 */
export function refusedGitConfigKeys(listing: string): string[] {
  const fields = listing.split("\0");
  const refused: string[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i] ?? "";
    const entry = fields[i + 1] ?? "";
    if (scope === "command") continue;
    const lf = entry.indexOf("\n");
    const key = lf === -1 ? entry : entry.slice(0, lf);
    const value = lf === -1 ? undefined : entry.slice(lf + 1);
    if (isRefusedGitConfig(key, value) && !refused.includes(key)) refused.push(key);
  }
  return refused;
}
