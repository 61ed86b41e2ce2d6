/**
 * Dangerous combinations: grants that are each fine alone but together hand an injected
 * instruction a path to harm. Each has a stable id (danger-ids.ts). A manifest that has one
 * fails validation until its author lists the id in `acknowledge` — the point is that someone
 * decided, not that nobody noticed.
 */
import { isProgramRunner } from "../../host-proxies/shell/index.js";
import { hostBelow, hostDirsOverlap, isOpenHostPattern } from "../policy/catalogue/index.js";
import type { DangerId } from "./danger-ids.js";
import { grantMounts } from "./host-dirs.js";
import type { Problem } from "./issues.js";
import type { AgentManifest } from "./schema.js";

export interface DangerWarning {
  id: DangerId;
  /** Where in the manifest the combination shows, for the error message. */
  path: string;
  message: string;
}

export interface DangerContext {
  /** Absolute dirs no writable mount may contain: the data dir, the manifests dir. */
  protectedDirs: readonly string[];
}

type Detector = (m: AgentManifest, context: DangerContext) => DangerWarning[];

const fsWriteShellSameMount: Detector = (m) => {
  const shell = m.grants["shell.exec"]?.mounts ?? [];
  return (m.grants["fs.write"]?.mounts ?? []).flatMap((w) => {
    const j = shell.findIndex((s) => hostDirsOverlap(w.host, s.host));
    const s = shell[j];
    if (s === undefined) return [];
    return [{
      id: "fs-write-shell-same-mount",
      path: `grants.shell.exec.mounts[${j}]`,
      message: `fs.write (${w.guest}) and shell.exec (${s.guest}) reach the same host directory: the agent can write a file and then run it (a git hook, a package.json script), so one approved write becomes code execution`,
    }];
  });
};

const fsWriteRuntimeFiles: Detector = (m, context) =>
  grantMounts(m)
    .filter(({ capability, mount }) => capability === "fs.write" || (capability === "shell.exec" && mount.mode === "rw"))
    .flatMap(({ capability, index, mount }) => {
      const dir = context.protectedDirs.find((p) => isAtOrAbove(mount.host, p));
      if (dir === undefined) return [];
      return [{
        id: "fs-write-runtime-files" as const,
        path: `grants.${capability}.mounts[${index}].host`,
        message: `the writable mount ${mount.guest} contains ${dir}: the agent could rewrite agent manifests (its own grants), the store or the audit log`,
      }];
    });

/** Whether `dir` is `mountHost` or under it. A mount below the data dir (the workspace) is fine. */
function isAtOrAbove(mountHost: string, dir: string): boolean {
  return hostBelow(mountHost, dir) !== undefined;
}

const mailReadOpenNetwork: Detector = (m) => {
  const hosts = m.grants["http.fetch"]?.hosts ?? [];
  const i = hosts.findIndex(isOpenHostPattern);
  if (m.grants["gmail.read"] === undefined || i === -1) return [];
  return [{
    id: "mail-read-open-network",
    path: `grants.http.fetch.hosts[${i}]`,
    message: `gmail.read with http.fetch to ${JSON.stringify(hosts[i])}: a message can instruct the agent to send your mail to any server (prompt injection → exfiltration)`,
  }];
};

const mailReadShell: Detector = (m) =>
  m.grants["gmail.read"] !== undefined && m.grants["shell.exec"] !== undefined
    ? [{ id: "mail-read-shell", path: "grants.shell.exec", message: "gmail.read with shell.exec: an instruction hidden in a message can become a command line" }]
    : [];

const mailReadSchedule: Detector = (m) =>
  m.grants["gmail.read"] !== undefined && m.grants.schedule !== undefined
    ? [{
      id: "mail-read-schedule",
      path: "grants.schedule",
      message: "gmail.read with schedule: an instruction hidden in a message can plant a schedule whose runs act later, with nobody watching them start",
    }]
    : [];

const shellWithoutSandbox: Detector = (m) =>
  m.grants["shell.exec"]?.sandbox === false
    ? [{ id: "shell-without-sandbox", path: "grants.shell.exec.sandbox", message: "commands run outside the OS sandbox, with the runtime's own view of the machine and network" }]
    : [];

/**
 * A command that runs other programs (sh, python3, node, env, xargs, busybox, npm…) turns
 * `shell.exec` into "run any code": its argument rules cannot tell `python3 -c '…'` from a
 * script. The list is the shell proxy's own (isProgramRunner), so what the proxy treats as a
 * runner is what needs acknowledging; a rule that says `runs_programs` is one whatever its name.
 */
const shellProgramRunner: Detector = (m) =>
  (m.grants["shell.exec"]?.commands ?? []).flatMap((command, i) => {
    const named = isProgramRunner(command.name);
    if (!named && !command.runs_programs) return [];
    return [{
      id: "shell-program-runner" as const,
      path: `grants.shell.exec.commands[${i}]`,
      message: named
        ? `shell.exec grants ${JSON.stringify(command.name)}, which runs other programs (a shell, an interpreter or a wrapper): an injected instruction becomes arbitrary code, whatever the argument rules say`
        : `shell.exec grants ${JSON.stringify(command.name)} with runs_programs: it runs programs its arguments or the project name, so an injected instruction can become arbitrary code`,
    }];
  });

/** Every detector that needs only one manifest (spawn-wider-agent needs all: see load.ts). */
const DETECTORS: readonly Detector[] = [fsWriteShellSameMount, fsWriteRuntimeFiles, mailReadOpenNetwork, mailReadShell, mailReadSchedule, shellWithoutSandbox, shellProgramRunner];

export function detectDangers(m: AgentManifest, context: DangerContext): DangerWarning[] {
  return DETECTORS.flatMap((detect) => detect(m, context));
}

/** A problem for each warning whose id the manifest does not acknowledge. */
export function unacknowledgedProblems(m: AgentManifest, warnings: readonly DangerWarning[]): Problem[] {
  return warnings
    .filter((w) => !m.acknowledge.includes(w.id))
    .map((w) => ({
      path: w.path,
      message: `dangerous combination ${w.id}: ${w.message}. If that is intended, acknowledge it in this manifest: acknowledge: [${w.id}]`,
    }));
}
