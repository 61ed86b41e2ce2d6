/** Shared setup of the MCP client tests: real servers from node_modules, run confined. */
import { realpathSync } from "node:fs";
import { copyFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Runtime } from "../../runtime/index.js";
import type { AgentManifest } from "../../runtime/agents/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { probeSandbox } from "../../host-proxies/shell/index.js";

/** The node_modules folder by its real path (it is bound read-only into each server's sandbox). */
export const NODE_MODULES = realpathSync(join(PROJECT_ROOT, "node_modules"));
export const FIXTURES = realpathSync(join(PROJECT_ROOT, "test", "fixtures", "mcp"));
export const FS_SERVER = join(NODE_MODULES, "@modelcontextprotocol", "server-filesystem", "dist", "index.js");
export const EVERYTHING_SERVER = join(NODE_MODULES, "@modelcontextprotocol", "server-everything", "dist", "index.js");
/**
 * The probe server, copied out of the install folder (which no server may be shown) into a
 * folder of its own, as an operator installs a server.
 */
const probeDir = await mkdtemp(join(tmpdir(), "clawhive-mcp-probe-"));
await copyFile(join(FIXTURES, "probe-server.mjs"), join(probeDir, "probe-server.mjs"));
export const PROBE_DIR = realpathSync(probeDir);
export const PROBE_SERVER = join(PROBE_DIR, "probe-server.mjs");

const sandbox = await probeSandbox();
/** Stdio servers run only under bubblewrap: without it these tests have nothing to run. */
export const NO_SANDBOX: string | false = sandbox.available ? false : `bubblewrap is not usable here: ${sandbox.reason}`;

/** Defines an agent whose tools are the given MCP servers'; returns its manifest. */
export async function defineMcpAgent(runtime: Runtime, name: string, servers: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<AgentManifest> {
  return runtime.defineAgent({
    name,
    description: `MCP client test agent ${name}`,
    model: { provider: "anthropic", id: "test-model" },
    system_prompt: "test",
    grants: { log: {} },
    mcp_servers: servers,
    ...extra,
  });
}

/** Reviews and accepts `server`'s current definitions, as a person would. */
export async function acceptServer(runtime: Runtime, agent: AgentManifest, server: string): Promise<void> {
  const review = await runtime.mcpClient.review(agent, server);
  await runtime.mcpClient.accept(agent, server, { diffHash: review.diff.hash, by: "alice" });
}

export function probeSpec(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: "node", args: [PROBE_SERVER, NODE_MODULES], read_only: [NODE_MODULES, PROBE_DIR], ...extra };
}
