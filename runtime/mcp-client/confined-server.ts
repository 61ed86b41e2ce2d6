/**
 * A stdio MCP server's process, confined as `shell.exec` commands are (host-proxies/shell
 * confine.ts): bubblewrap with every namespace unshared (no network but its own loopback), its
 * own mounts only (sensitive names covered), the system dirs and the server's `read_only`
 * paths read-only, a scrubbed environment plus its `env` (plain values and the named secrets
 * it is granted), and nothing else of the host. Without a usable bubblewrap it is not started at all.
 */
import { realpath } from "node:fs/promises";
import { confinedPlan, openShellMounts } from "../../host-proxies/shell/index.js";
import { McpClientError } from "./errors.js";
import type { McpConnectOptions } from "./connect-options.js";
import { ConfinedStdioTransport } from "./stdio-transport.js";

export async function startConfinedServer(options: McpConnectOptions): Promise<ConfinedStdioTransport> {
  const { spec, name, sandbox } = options;
  if (!sandbox.available) {
    throw new McpClientError("mcp_no_sandbox", `MCP server ${name}: a stdio server runs only inside bubblewrap, which is not usable here (${sandbox.reason}); install bubblewrap`);
  }
  const env: Record<string, string> = {};
  // The secrets' values, redacted from whatever the server sends back (run-calls.ts).
  const secrets: string[] = [];
  for (const [key, value] of Object.entries(spec.env ?? {})) {
    if (typeof value === "string") {
      env[key] = value;
      continue;
    }
    const grant = value;
    try {
      env[key] = await options.secretValue(grant.secret);
      secrets.push(env[key]);
    } catch (error) {
      throw new McpClientError("mcp_server_unavailable", `MCP server ${name}: env.${key}: secret ${grant.secret} could not be read: ${(error as Error).message}`, { cause: error });
    }
  }
  // The runtime's own Node.js, by its real path: a symlink would be bound, not what it names.
  const path = spec.command === "node" || spec.command === undefined ? await realpath(process.execPath) : spec.command;
  // Bound by path: one that now leads elsewhere (a symlink swapped in since the manifest was
  // checked, where its real path was recorded) is refused rather than followed.
  for (const path of spec.read_only ?? []) {
    const real = await realpath(path).catch(() => undefined);
    if (real !== path) throw new McpClientError("mcp_server_unavailable", `MCP server ${name}: read_only ${path} ${real === undefined ? "no longer exists" : `now leads to ${real}`}; check the manifest again`);
  }
  const mounts = await openShellMounts(spec.mounts ?? [], options.hostGuard);
  try {
    const plan = await confinedPlan(sandbox, mounts, {
      path,
      args: spec.args ?? [],
      env,
      cwd: spec.mounts?.[0]?.guest,
      readOnly: spec.read_only ?? [],
    });
    const release = () => Promise.all(mounts.map((m) => m.root.close().catch(() => undefined))).then(() => undefined);
    return new ConfinedStdioTransport(plan, { ...options.bounds, release, secrets });
  } catch (error) {
    await Promise.all(mounts.map((m) => m.root.close().catch(() => undefined)));
    throw error;
  }
}
