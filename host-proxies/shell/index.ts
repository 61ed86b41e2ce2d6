/** `clawhive:host/shell`: granted programs, argv only, confined to the instance's mounts. */
export { resolveShellGrant, DEFAULT_SEARCH_PATH, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_TIMEOUT_MS } from "./resolve.js";
export type { ResolveShellGrantOptions } from "./resolve.js";
export { canonicalizeExec, DEFAULT_MAX_STDIN_BYTES, MAX_ARGC, MAX_ARG_BYTES, MAX_ARGV_BYTES } from "./canonicalize.js";
export type { CanonicalizeExecOptions } from "./canonicalize.js";
export { DANGEROUS_OPTIONS, isProgramRunner } from "./dangerous-options.js";
export type { OptionRule } from "./option-scan.js";
export { SHELL_CAPABILITY, SHELL_DENIAL_REASONS } from "./reasons.js";
export type { ShellDenialReason } from "./reasons.js";
export { probeSandbox, systemLayout, DEFAULT_BWRAP_PATH } from "./sandbox.js";
export type { ProbeOptions, SandboxInfo } from "./sandbox.js";
export { DEFAULT_HEAD_BYTES, DEFAULT_TAIL_BYTES } from "./capture.js";
export { DEFAULT_KILL_GRACE_MS } from "./process.js";
export { createShellProxy } from "./proxy.js";
export { DEFAULT_MAX_SCAN_ENTRIES } from "./sensitive-overlay.js";
export type { ShellProxy, ShellProxyOptions } from "./proxy.js";
export { shellHostFunctions, SHELL_HOST_FUNCTION_NAMES } from "./host-functions.js";
export type { HostFunction, ShellHostFunctionName } from "./host-functions.js";
export type {
  CanonicalExec,
  CommandIdentity,
  ExecOutput,
  ExecRequest,
  ExecResult,
  ResolvedCommand,
  ResolvedShellGrant,
} from "./types.js";
export { confinedPlan, confinedStdio } from "./confine.js";
export type { ConfinedProgram } from "./confine.js";
export { checkShellMounts, openShellMounts } from "./mounts.js";
export type { OpenShellMount } from "./mounts.js";
export type { ProcessPlan } from "./process.js";
