/**
 * The stable ids of dangerous combinations. Manifests name them in `acknowledge`, operators
 * grep for them, so an id never changes meaning; a new danger gets a new id.
 */
export const DANGER_IDS = [
  /** fs.write and shell.exec reach the same host directory: write a file, then run it. */
  "fs-write-shell-same-mount",
  /** A writable mount (fs.write, or a shell rw mount) contains the data dir or the manifests. */
  "fs-write-runtime-files",
  /** gmail.read with http.fetch open to any host: injected mail can ship mail anywhere. */
  "mail-read-open-network",
  /** gmail.read with shell.exec: injected mail can become a command line. */
  "mail-read-shell",
  /** gmail.read with schedule: injected mail can plant a run that acts later, unwatched. */
  "mail-read-schedule",
  /** shell.exec with `sandbox: false`. */
  "shell-without-sandbox",
  /** shell.exec grants a command that runs other programs: a shell, an interpreter, a wrapper. */
  "shell-program-runner",
  /** A sub-agent with grants or approvals wider than the agent that starts it. */
  "spawn-wider-agent",
] as const;

export type DangerId = (typeof DANGER_IDS)[number];
