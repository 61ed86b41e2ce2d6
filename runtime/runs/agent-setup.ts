import { mkdir } from "node:fs/promises";
import { join, relative, resolve, isAbsolute } from "node:path";
import { stringify } from "yaml";
import * as v from "valibot";
import { parseAgentManifest, type AgentManifest } from "../agents/index.js";
import { InvalidInputError } from "../errors.js";
import { CapabilityGrantSchema, grantCovers, type CapabilityGrant } from "../policy/catalogue/index.js";
import { checkMountHost } from "../../host-proxies/fs/index.js";
import type { FsMount, MountHostGuard } from "../../host-proxies/fs/index.js";

/** Validates an agent given as an object (programmatic API, ad-hoc CLI runs) like a file. */
export async function parseInlineAgent(manifest: unknown, options: { dataDir: string; hostGuard: MountHostGuard }): Promise<AgentManifest> {
  const name = manifest && typeof manifest === "object" && "name" in manifest ? String((manifest as { name: unknown }).name) : "agent";
  const text = stringify(manifest);
  const common = { file: `<agent ${name}>`, baseDir: options.dataDir, hostGuard: options.hostGuard };
  const lint = parseAgentManifest(text, { ...common, checkHostDirs: false });
  await createDataDirMounts(lint.manifest, options.dataDir);
  return parseAgentManifest(text, common).manifest;
}

async function createDataDirMounts(manifest: AgentManifest, dataDir: string): Promise<void> {
  for (const mount of grantMountsOf(manifest.grants)) {
    const host = resolve(dataDir, mount.host);
    const inside = relative(resolve(dataDir), host);
    if (!inside.startsWith("..") && !isAbsolute(inside)) await mkdir(host, { recursive: true });
  }
}

function grantMountsOf(grants: CapabilityGrant): Array<{ guest: string; host: string }> {
  return [...(grants["fs.read"]?.mounts ?? []), ...(grants["fs.write"]?.mounts ?? []), ...((grants["shell.exec"] as { mounts?: Array<{ guest: string; host: string }> } | undefined)?.mounts ?? [])];
}

/**
 * The mount table of an agent's instances: every guest path of its fs grants, read-write where
 * fs.write names it. The policy still checks each call against each layer's own grant.
 */
export function agentMounts(agent: AgentManifest): { mounts: FsMount[]; allowSensitive: string[] } {
  const byGuest = new Map<string, FsMount>();
  for (const mount of agent.grants["fs.read"]?.mounts ?? []) byGuest.set(mount.guest, { guest: mount.guest, host: mount.host, mode: "ro" });
  for (const mount of agent.grants["fs.write"]?.mounts ?? []) byGuest.set(mount.guest, { guest: mount.guest, host: mount.host, mode: "rw" });
  const allowSensitive = [...new Set([...(agent.grants["fs.read"]?.allow_sensitive ?? []), ...(agent.grants["fs.write"]?.allow_sensitive ?? [])])];
  return { mounts: [...byGuest.values()], allowSensitive };
}

/**
 * A task's narrower grant, or a step's elevation: valid, and within the agent's grant (grants
 * only ever narrow; an elevation restores at most what the agent has).
 */
export function parseTaskGrants(input: unknown, agent: AgentManifest, options: { field?: string; hostGuard: MountHostGuard }): CapabilityGrant {
  const field = options.field ?? "grants";
  const parsed = v.safeParse(CapabilityGrantSchema, input);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = (issue && v.getDotPath(issue)) ?? "";
    throw new InvalidInputError(`${field}${path ? `.${path}` : ""}: ${issue?.message ?? "invalid"}`, { field: `${field}${path ? `.${path}` : ""}` });
  }
  const grants = canonicalTaskMounts(parsed.output as CapabilityGrant, { field, hostGuard: options.hostGuard });
  const coverage = grantCovers(agent.grants, grants);
  if (!coverage.covered) {
    throw new InvalidInputError(`${field}.${coverage.path}: ${coverage.reason}; it may only narrow agent ${agent.name}'s grant`, { field: `${field}.${coverage.path}` });
  }
  return grants;
}

/**
 * The grant with every mount host canonical (symlinks resolved, as `covers` requires) and none
 * naming a forbidden root: without this a task could narrow to `<mount>/link` where `link`
 * points at `/proc`, which lies lexically under the agent's mount.
 */
function canonicalTaskMounts(grants: CapabilityGrant, options: { field: string; hostGuard: MountHostGuard }): CapabilityGrant {
  for (const capability of ["fs.read", "fs.write", "shell.exec"] as const) {
    const mounts = (grants[capability] as { mounts?: FsMount[] } | undefined)?.mounts ?? [];
    mounts.forEach((mount, index) => {
      const path = `${options.field}.${capability}.mounts[${index}].host`;
      // A task names hosts the agent's (absolute) mounts cover: a relative one cannot match.
      if (!isAbsolute(mount.host)) throw new InvalidInputError(`${path}: expected an absolute host path`, { field: path });
      const checked = checkMountHost(mount.host, options.hostGuard);
      if (!checked.ok) throw new InvalidInputError(`${path}: ${checked.message}`, { field: path });
      mount.host = checked.host;
    });
  }
  return grants;
}

export const DEFAULT_STORE_FILE = "clawhive.db";
export function defaultStoreUrl(dataDir: string): string {
  return `file:${join(dataDir, DEFAULT_STORE_FILE)}`;
}
