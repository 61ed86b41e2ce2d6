import * as v from "valibot";
import type { InstalledPlugin } from "../../plugins/install/index.js";
import { agentTools } from "../../runs/agent-tools.js";
import type { ToolInfo } from "../../runs/types.js";
import type { Runtime } from "../../runtime.js";
import type { SandboxPlugin } from "../../sandbox/index.js";
import { inert } from "../../text/inert.js";
import type { AgentCatalog } from "./agent-catalog.js";
import { NAME } from "./fields.js";
import { defineRoute, reply } from "./route.js";
import type { ApiRoute } from "./route.js";
import { ToolPage, type ToolSchema } from "../schemas/resources.js";
import { PAGE_QUERY, pageOf } from "./page.js";

const Query = v.strictObject({ agent: v.optional(NAME), ...PAGE_QUERY });

/** `GET /v1/tools`: every loaded tool, or what one agent may use (at the risk it has for that agent). */
export function toolRoutes(runtime: Runtime, catalog: AgentCatalog): ApiRoute[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/tools",
      tag: "tools",
      summary: "The tools of the loaded plugins, or with ?agent= those the agent may use",
      description:
        "With ?agent=, exactly what its runs are offered: the plugins its manifest lists, in its version ranges, narrowed to its tool subsets, with the risk after the agent's raise/lower settings. 422 when the agent names a plugin that is not installed or out of range.",
      roles: ["admin", "client"],
      query: Query,
      responses: { 200: { description: "a page of tools, in the runtime's order", schema: ToolPage }, 404: { description: "no agent of that name" } },
      handler: async (c, { query }) => {
        await runtime.refreshPlugins();
        if (query.agent === undefined) {
          const page = pageOf(inOrder(runtime.tools()), positionKey, query);
          return reply(c, ToolPage, { tools: page.items.map(({ tool: t }) => toolView(t, t.risk)), next_cursor: page.next_cursor });
        }
        const declared = new Map(runtime.tools().map((t) => [t.qualifiedName, t.risk]));
        const agent = await catalog.manifest(query.agent);
        const installed = await runtime.installer.registry.list();
        // Each tool's risk after the agent's overrides (see agentTools).
        const offered = agentTools(agent, { plugins: versionsOf(installed), tools: runtime.tools(), mcpPins: runtime.mcpClient.pins });
        const page = pageOf(inOrder(offered), positionKey, query);
        return reply(c, ToolPage, { agent: agent.name, tools: page.items.map(({ tool: t }) => toolView(t, declared.get(t.qualifiedName) ?? t.risk)), next_cursor: page.next_cursor });
      },
    }),
  ];
}

/**
 * What `agentTools` reads of a loaded plugin is its manifest (the version); the registry has it
 * without loading anything into the sandbox, so no module is given.
 */
function versionsOf(installed: readonly InstalledPlugin[]): Map<string, SandboxPlugin> {
  return new Map(installed.map((p) => [p.name, { key: `${p.name}@${p.blobSha256}`, manifest: p.manifest, format: p.manifest.format, modules: {} }]));
}

/** A tool as the API shows it: `risk` is what its calls get, `pluginRisk` the plugin's when it differs. */
function toolView(t: ToolInfo, pluginRisk: ToolInfo["risk"]): v.InferInput<typeof ToolSchema> {
  return {
    name: t.qualifiedName,
    plugin: t.plugin,
    tool: t.name,
    description: inert(t.description),
    input_schema: t.inputSchema,
    capabilities: t.capabilities,
    risk: t.risk,
    ...(pluginRisk === t.risk ? {} : { plugin_risk: pluginRisk }),
  };
}

/**
 * Tools keep the runtime's order (plugin by plugin, each manifest's order), the order the CLI
 * and a model see them in; a page's key is the position, which changes only when plugins do.
 */
function inOrder<T>(tools: readonly T[]): Array<{ tool: T; position: number }> {
  return tools.map((tool, position) => ({ tool, position }));
}

function positionKey(entry: { position: number }): string {
  return String(entry.position).padStart(6, "0");
}
