/**
 * Checks of `mcp_servers` that span fields, other parts of the manifest or the disk. Each
 * returns problems naming the field (`mcp_servers.files.mounts[0].host: …`); none throws.
 * Mount and read-only hosts pass the same forbidden-roots check as grant mounts
 * (host-proxies/fs/forbidden-roots.ts); guest paths the shell sandbox's reserved-roots check.
 */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { checkMountHost, createMountHostGuard, isAtOrBelow, type MountHostGuard } from "../../host-proxies/fs/index.js";
import { checkShellMounts } from "../../host-proxies/shell/index.js";
import { hostMatches, type CapabilityGrant } from "../policy/catalogue/index.js";
import type { McpServers, McpServerSpec } from "./spec.js";

export interface McpProblem {
  path: string;
  message: string;
}

const STDIO_ONLY = ["command", "args", "read_only", "mounts", "env"] as const;

/** Cross-field problems that need no disk: transport, the http grant, names. */
export function mcpServerProblems(servers: McpServers, context: { grants: CapabilityGrant; plugins: readonly string[] }): McpProblem[] {
  const problems: McpProblem[] = [];
  for (const [name, spec] of Object.entries(servers)) {
    const at = `mcp_servers.${name}`;
    if (context.plugins.includes(name)) problems.push({ path: at, message: `${name} is also a plugin in plugins; tools are named <plugin>.<tool>, so give the server another name` });
    if ((spec.command === undefined) === (spec.url === undefined)) {
      problems.push({ path: at, message: "expected exactly one of command (a stdio server) and url (a streamable HTTP server)" });
      continue;
    }
    if (spec.url !== undefined) problems.push(...httpProblems(at, spec, context.grants));
  }
  return problems;
}

function httpProblems(at: string, spec: McpServerSpec, grants: CapabilityGrant): McpProblem[] {
  const problems: McpProblem[] = [];
  for (const field of STDIO_ONLY) {
    if (spec[field] !== undefined) problems.push({ path: `${at}.${field}`, message: "only a stdio server (command) has this; an HTTP server runs elsewhere" });
  }
  const url = new URL(spec.url!);
  const grant = grants["http.fetch"];
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== "https" && scheme !== "http") return [...problems, { path: `${at}.url`, message: "expected an http or https URL" }];
  if (url.username !== "" || url.password !== "") problems.push({ path: `${at}.url`, message: "credentials in the URL are refused: attach them with grants.http.fetch.credentials" });
  if (grant === undefined) return [...problems, { path: `${at}.url`, message: `reaching ${url.host} needs grants.http.fetch allowing it (hosts, and POST in methods)` }];
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!grant.hosts.some((p) => hostMatches(p, host))) problems.push({ path: `${at}.url`, message: `${host} is not in grants.http.fetch.hosts` });
  if (!grant.schemes.includes(scheme as "https")) problems.push({ path: `${at}.url`, message: `${scheme} is not in grants.http.fetch.schemes` });
  if (!grant.methods.includes("POST")) problems.push({ path: `${at}.url`, message: "the MCP streamable HTTP transport POSTs its messages: add POST to grants.http.fetch.methods" });
  return problems;
}

export interface McpHostOptions {
  baseDir: string;
  checkHostDirs?: boolean | undefined;
  hostGuard?: MountHostGuard | undefined;
}

/** A copy of `servers` with mount and read-only hosts absolute and canonical, and the problems found. */
export function resolveMcpHostDirs(servers: McpServers, options: McpHostOptions): { servers: McpServers; problems: McpProblem[] } {
  const resolved = structuredClone(servers);
  const problems: McpProblem[] = [];
  const guard = options.hostGuard ?? createMountHostGuard({ dataDir: options.baseDir });
  const check = options.checkHostDirs ?? true;
  for (const [name, spec] of Object.entries(resolved)) {
    const at = `mcp_servers.${name}`;
    (spec.mounts ?? []).forEach((mount, i) => {
      const abs = isAbsolute(mount.host) ? mount.host : `${options.baseDir}/${mount.host}`;
      const host = canonical(abs, () => guard, check, "directory");
      if ("problem" in host) problems.push({ path: `${at}.mounts[${i}].host`, message: host.problem });
      else mount.host = host.path;
    });
    try {
      checkShellMounts((spec.mounts ?? []).map((m) => ({ ...m, host: isAbsolute(m.host) ? m.host : "/nonexistent" })), guard);
    } catch (error) {
      const field = (error as { field?: string }).field;
      problems.push({ path: `${at}.${field ?? "mounts"}`, message: (error as Error).message.replace(/^mounts\[\d+\]\.\w+( \([^)]*\))?: /, "") });
    }
    (spec.read_only ?? []).forEach((path, i) => {
      const host = canonical(path, (p) => packageGuard(guard, p), check, "any");
      if ("problem" in host) problems.push({ path: `${at}.read_only[${i}]`, message: host.problem });
      else spec.read_only![i] = host.path;
    });
    // Bound at their own paths: one inside a guest mount would be created in (and shadow part
    // of) the mounted host directory.
    const own = [...(spec.read_only ?? []).map((p, i) => ({ p, field: `read_only[${i}]` })), ...(spec.command?.startsWith("/") ? [{ p: spec.command, field: "command" }] : [])];
    for (const { p, field } of own) {
      const mount = (spec.mounts ?? []).find((m) => isAtOrBelow(m.guest, p) || isAtOrBelow(p, m.guest));
      if (mount !== undefined) problems.push({ path: `${at}.${field}`, message: `${p} overlaps the guest mount ${mount.guest}, where it would be bound; mount the server's folder at another guest path (e.g. /data)` });
    }
    if (spec.command !== undefined && spec.command !== "node" && check) {
      const program = canonical(spec.command, (p) => packageGuard(guard, p), true, "file");
      if ("problem" in program) problems.push({ path: `${at}.command`, message: program.problem });
    }
  }
  return { servers: resolved, problems };
}

/**
 * The guard for a read-only path inside a `node_modules` folder: installed packages are code
 * anyone can read, so the runtime's own dependencies (refused as mounts, which a plugin could
 * write to) may be shown to a server read-only. Everything else of the install folder, and
 * every other forbidden root, stays refused.
 */
function packageGuard(guard: MountHostGuard, path: string): MountHostGuard {
  if (!path.split("/").includes("node_modules")) return guard;
  const { installDir, runtimePaths, ...roots } = guard.roots;
  const modules = (runtimePaths ?? []).filter((p) => p.path.split("/").at(-1) !== "node_modules");
  return createMountHostGuard({ ...roots, runtimePaths: modules, ...(installDir === undefined || isAtOrBelow(join(installDir, "node_modules"), path) ? {} : { installDir }) });
}

function canonical(path: string, guardFor: (path: string) => MountHostGuard, check: boolean, kind: "directory" | "file" | "any"): { path: string } | { problem: string } {
  const guard = guardFor(path);
  const allowed = checkMountHost(path, guard);
  if (!allowed.ok) return { problem: allowed.message };
  if (!check) return { path: allowed.host };
  try {
    const stats = statSync(allowed.host);
    if (kind === "directory" && !stats.isDirectory()) return { problem: `not a directory: ${allowed.host}` };
    if (kind === "file" && !stats.isFile()) return { problem: `not a file: ${allowed.host}` };
    const real = realpathSync.native(allowed.host);
    // Decided again on where it leads: a symlink into a forbidden root is refused as the root is.
    const again = checkMountHost(real, guardFor(real));
    return again.ok ? { path: real } : { problem: again.message };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
    return { problem: `${code === "ENOENT" ? "does not exist" : `cannot be opened (${code})`}: ${allowed.host}` };
  }
}
