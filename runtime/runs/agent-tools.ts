import semver from "semver";
import type { AgentManifest } from "../agents/index.js";
import { PluginError } from "../errors.js";
import type { PluginHandle, ToolInfo } from "./types.js";

/**
 * The tools an agent may use: those of the plugins its manifest lists, at a version inside the
 * listed range, narrowed to the listed tool subset. Anything else does not exist for its runs.
 */
export function agentTools(agent: AgentManifest, options: { plugins: ReadonlyMap<string, Pick<PluginHandle, "manifest">>; tools: readonly ToolInfo[] }): ToolInfo[] {
  const offered: ToolInfo[] = [];
  for (const ref of agent.plugins) {
    const plugin = options.plugins.get(ref.name);
    if (!plugin) throw new PluginError("plugin_missing", `agent ${agent.name}: plugin ${ref.name} is not installed`);
    if (!semver.satisfies(plugin.manifest.version, ref.version)) {
      throw new PluginError(
        "plugin_version_mismatch",
        `agent ${agent.name}: plugin ${ref.name} is at ${plugin.manifest.version}, outside the manifest's range ${ref.version}`,
      );
    }
    const tools = options.tools.filter((t) => t.plugin === ref.name);
    const subset = ref.tools;
    for (const name of subset ?? []) {
      if (!tools.some((t) => t.name === name)) throw new PluginError("tool_missing", `agent ${agent.name}: plugin ${ref.name} has no tool ${name}`);
    }
    offered.push(...(subset ? tools.filter((t) => subset.includes(t.name)) : tools));
  }
  return offered;
}
