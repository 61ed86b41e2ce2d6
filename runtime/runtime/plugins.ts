/** A runtime's plugins: installed ones read from the store's registry, loaded when first used. */
import type { AgentManifest } from "../agents/index.js";
import type { ChangeOptions, InstalledPlugin, InstallOptions, InstallResult, InstallSourceOptions, UpgradeOptions } from "../plugins/install/index.js";
import { agentTools } from "../runs/agent-tools.js";
import type { PluginHandle, ToolInfo } from "../runs/types.js";
import type { SandboxPlugin } from "../sandbox/index.js";
import type { RuntimeState } from "./state.js";

/** What `Runtime.plugins()` lists of each plugin. */
export interface LoadedPlugin {
  name: string;
  version: string;
  description: string;
  publisher: string;
  format: string;
  sha256: string;
}

/** The tools `agent`'s runs are offered: its plugins' and its accepted MCP servers' (`agentTools`). */
export function agentToolsOf(s: RuntimeState, agent: AgentManifest): ToolInfo[] {
  return agentTools(agent, { plugins: s.plugins, tools: s.tools, mcpPins: s.mcpClient?.pins });
}

export function loadedPlugins(s: RuntimeState): LoadedPlugin[] {
  return s.installed.map(({ manifest, blobSha256 }) => ({
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    publisher: manifest.publisher,
    format: manifest.format,
    sha256: blobSha256,
  }));
}

export async function installPlugin(s: RuntimeState, source: string, options: InstallSourceOptions & InstallOptions = {}): Promise<InstallResult> {
  const result = await s.installer.install(source, options);
  await refreshPlugins(s);
  return result;
}

export async function upgradePlugin(s: RuntimeState, name: string, source: string, options: UpgradeOptions & ChangeOptions = {}): Promise<InstallResult> {
  const result = await s.installer.upgrade(name, source, options);
  await refreshPlugins(s);
  return result;
}

export async function removePlugin(s: RuntimeState, name: string, options: { by?: string } = {}): Promise<InstalledPlugin> {
  const removed = await s.installer.remove(name, options);
  await refreshPlugins(s);
  return removed;
}

/**
 * Loads what the store says is installed, when it changed since the last look (another
 * process may have installed, upgraded or removed a plugin). Runs already started keep the
 * plugins they started with.
 */
export function refreshPlugins(s: RuntimeState): Promise<void> {
  return s.pluginsLook.look();
}

export async function syncPlugins(s: RuntimeState): Promise<void> {
  const seen = await s.installer.registry.fingerprint();
  if (seen === s.pluginsSeen) return;
  const installed = await s.installer.registry.list();
  const plugins = new Map<string, PluginHandle>();
  const tools: ToolInfo[] = [];
  for (const entry of installed) {
    // Compiled when a run first uses it: a runtime with many plugins installed holds the code
    // of those in use only.
    let loading: Promise<SandboxPlugin> | undefined;
    plugins.set(entry.name, {
      manifest: entry.manifest,
      load: () => {
        loading ??= s.installer.load(entry, s.sandbox).then(
          ({ plugin }) => plugin,
          (error: unknown) => {
            loading = undefined;
            throw error;
          },
        );
        return loading;
      },
    });
    for (const t of entry.tools) {
      tools.push({ plugin: entry.name, name: t.name, qualifiedName: `${entry.name}.${t.name}`, description: t.description, inputSchema: t.inputSchema, capabilities: [...t.capabilities], risk: t.risk });
    }
  }
  // New objects, so runs already built keep the map they were given.
  s.plugins = plugins;
  s.tools = tools;
  s.installed = installed;
  s.pluginsSeen = seen;
}
