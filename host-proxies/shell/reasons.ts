/**
 * The stable reason codes of shell denials. Operators, the policy engine and tests match on
 * these strings, so they never change meaning. Every shell denial names `shell.exec`.
 */
import { HostProxyError } from "../types.js";

export const SHELL_CAPABILITY = "shell.exec";

export const SHELL_DENIAL_REASONS = {
  /** argv[0] is not a granted command name. */
  commandNotAllowed: "command-not-allowed",
  /** argv[0] is a path (`/bin/sh`, `./x`): only bare granted names run. */
  commandPath: "command-path",
  /** The command runs other programs (a shell, `xargs`, `env`…) and the operator did not acknowledge it. */
  dangerousCommand: "dangerous-command",
  /** An option or word from the default dangerous-option table. */
  dangerousOption: "dangerous-option",
  /** git: the repository's config sets a program git would run and cannot be told to skip. */
  dangerousConfig: "dangerous-config",
  /** cwd is outside every mount, or passes through a symlink. */
  cwdOutsideMount: "cwd-outside-mount",
  /** timeout-ms above the grant's limit. */
  timeoutLimit: "timeout-limit",
  /** stdin larger than the proxy's cap. */
  sizeCap: "size-cap",
  /** The grant needs the OS sandbox and bubblewrap is not usable here. */
  noSandbox: "no-sandbox",
  /** The resolved binary is not the file it was when the grant was resolved. */
  commandChanged: "command-changed",
} as const;

export type ShellDenialReason = (typeof SHELL_DENIAL_REASONS)[keyof typeof SHELL_DENIAL_REASONS];

export function shellDenied(reason: ShellDenialReason, message: string): HostProxyError {
  return HostProxyError.denied(SHELL_CAPABILITY, reason, message);
}
