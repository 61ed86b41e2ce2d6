/**
 * What a `shell.exec` grant names: the proxy's own resource type. The policy catalogue validates
 * manifests into this shape (its valibot schema is checked against it); the proxy resolves its
 * commands (resolve.ts) and matches argv against them (argv.ts).
 */
import type { FsMount } from "../fs/index.js";
import type { CommandRule } from "./argv.js";

export interface ShellCommandGrant extends CommandRule {
  /** The command runs other programs (npm, make, interpreters); refused unless set. */
  runs_programs: boolean;
}

export interface ShellResource {
  /** Directories commands see and may run in (cwd). */
  mounts: FsMount[];
  commands: ShellCommandGrant[];
  /** false runs commands outside the OS sandbox (flagged as dangerous). */
  sandbox: boolean;
}
