/**
 * Checks that span fields of one manifest and need no disk: the model endpoint, plugin and
 * tool references, risk overrides, limits. Each returns problems; none throws.
 */
import type { Problem } from "./issues.js";
import type { AgentManifest } from "./schema.js";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

function modelProblems(m: AgentManifest): Problem[] {
  const { provider, base_url: baseUrl } = m.model;
  if (baseUrl === undefined) {
    return provider === "openai-compatible" ? [{ path: "model.base_url", message: "required when provider is openai-compatible" }] : [];
  }
  const url = new URL(baseUrl);
  if (url.protocol === "https:") return [];
  if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return [];
  // The API key rides in a header: over plain http anyone on the path can read it.
  return [{ path: "model.base_url", message: "expected https (plain http is allowed only for localhost)" }];
}

function pluginProblems(m: AgentManifest): Problem[] {
  const seen = new Map<string, number>();
  const problems: Problem[] = [];
  m.plugins.forEach((p, i) => {
    const first = seen.get(p.name);
    if (first !== undefined) problems.push({ path: `plugins[${i}].name`, message: `plugin ${p.name} is already listed at plugins[${first}]` });
    else seen.set(p.name, i);
  });
  return problems;
}

/** Why `tool` (`plugin.tool`) is not offered by this manifest's plugins, or `undefined`. */
function toolRefProblem(m: AgentManifest, tool: string): string | undefined {
  const [pluginName, toolName] = tool.split(".") as [string, string];
  const server = m.mcp_servers[pluginName];
  if (server !== undefined) return server.tools !== undefined && !server.tools.includes(toolName) ? `tool ${toolName} is not in mcp_servers.${pluginName}.tools` : undefined;
  const plugin = m.plugins.find((p) => p.name === pluginName);
  if (plugin === undefined) return `plugin ${pluginName} is not listed in plugins (nor is an MCP server of that name in mcp_servers)`;
  if (plugin.tools !== undefined && !plugin.tools.includes(toolName)) return `tool ${toolName} is not in plugins' tools for ${pluginName}`;
  return undefined;
}

function overrideProblems(m: AgentManifest): Problem[] {
  const problems: Problem[] = [];
  const seen = new Map<string, string>();
  for (const list of ["raise_risk", "lower_risk"] as const) {
    m.approvals[list].forEach((o, i) => {
      const path = `approvals.${list}[${i}]`;
      const problem = toolRefProblem(m, o.tool);
      if (problem !== undefined) problems.push({ path: `${path}.tool`, message: problem });
      const earlier = seen.get(o.tool);
      if (earlier !== undefined) problems.push({ path: `${path}.tool`, message: `${o.tool} already has a risk override at ${earlier}` });
      seen.set(o.tool, path);
    });
  }
  m.approvals.lower_risk.forEach((o, i) => {
    if (o.acknowledged !== true) {
      problems.push({
        path: `approvals.lower_risk[${i}].acknowledged`,
        message: `lowering ${o.tool} to ${o.to} needs acknowledged: true (you accept that it runs with less approval than declared)`,
      });
    }
  });
  return problems;
}

function limitProblems(m: AgentManifest): Problem[] {
  const { call_timeout_ms: call, run_timeout_ms: run } = m.limits;
  return call > run ? [{ path: "limits.call_timeout_ms", message: `must not exceed limits.run_timeout_ms (${run})` }] : [];
}

/** The window assumed without `model.context_tokens` (the llm room's DEFAULT_CONTEXT_TOKENS). */
const DEFAULT_CONTEXT_TOKENS = 128_000;

function compactionProblems(m: AgentManifest): Problem[] {
  const compaction = m.model.compaction;
  if (compaction === undefined) return [];
  const context = m.model.context_tokens ?? DEFAULT_CONTEXT_TOKENS;
  const window = m.model.context_tokens === undefined ? `the default context window (${context} tokens)` : `model.context_tokens (${context})`;
  const problems: Problem[] = [];
  // A threshold at or past the window never triggers: the budget drops turns before it is reached.
  if (compaction.at_tokens !== undefined && compaction.at_tokens >= context) problems.push({ path: "model.compaction.at_tokens", message: `must be below ${window}` });
  // The summary call must leave room for what it summarises.
  if (compaction.summary_tokens * 2 > context) problems.push({ path: "model.compaction.summary_tokens", message: `must be at most half of ${window}` });
  return problems;
}

export function manifestProblems(m: AgentManifest): Problem[] {
  return [...modelProblems(m), ...pluginProblems(m), ...overrideProblems(m), ...limitProblems(m), ...compactionProblems(m)];
}
