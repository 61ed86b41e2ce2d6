/**
 * What the tool list costs in prompt tokens, per shipped agent (capabilities/*.yaml, with every
 * first-party plugin installed): the native form — the `tools` field as the OpenAI adapter sends
 * it, names and full JSON Schemas — against the text protocol's `<tools>` zone (model.tool_protocol:
 * text; docs/tool-protocol.md), both counted with o200k (gpt-tokenizer).
 * - tool_list_tokens_native_<agent>, tool_list_tokens_text_<agent>: the two counts.
 * - tool_list_tokens_text_vs_native_ratio_<agent>: text over native for that agent.
 * - tool_list_tokens_text_vs_native_ratio: summed over the shipped agents.
 * Providers add their own hidden framing around native tools; that is not counted here.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAgentManifest } from "../runtime/agents/index.js";
import { countTokens } from "../runtime/llm/context/tokens.js";
import { toOpenAiParams } from "../runtime/llm/openai/wire.js";
import { ToolNameMap, toolListPrompt, type ToolSpec } from "../runtime/llm/index.js";
import { Runtime } from "../runtime/index.js";
import { PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { toolSpecs } from "../runtime/runs/loop/request.js";
import { value, type Metrics } from "./metrics.js";

export interface ToolListTokens {
  agent: string;
  tools: number;
  native: number;
  text: number;
}

/** The two counts for one Step's tools. */
export function toolListTokens(specs: readonly ToolSpec[]): { native: number; text: number } {
  const params = toOpenAiParams({ system: "", messages: [], tools: [...specs], max_tokens: 1 }, { model: "m", names: new ToolNameMap(specs.map((s) => s.name)), maxTokensField: "max_tokens" });
  return { native: countTokens(JSON.stringify(params.tools ?? [])), text: countTokens(toolListPrompt(specs)) };
}

/** Every shipped agent's tool list, both ways. */
export async function shippedToolLists(): Promise<ToolListTokens[]> {
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-bench-tools-"));
  const runtime = await Runtime.create({ dataDir, agentsDir: join(dataDir, "agents") });
  try {
    const dir = join(PROJECT_ROOT, "capabilities");
    const out: ToolListTokens[] = [];
    for (const file of (await readdir(dir)).filter((f) => f.endsWith(".yaml")).sort()) {
      const { manifest } = parseAgentManifest(await readFile(join(dir, file), "utf8"), { file: `capabilities/${file}`, baseDir: dataDir, checkHostDirs: false });
      const specs = toolSpecs(runtime.agentTools(manifest));
      out.push({ agent: manifest.name, tools: specs.length, ...toolListTokens(specs) });
    }
    return out;
  } finally {
    await runtime.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function benchToolLists(): Promise<Metrics> {
  const lists = await shippedToolLists();
  const metrics: Metrics = {};
  for (const list of lists) {
    metrics[`tool_list_tokens_native_${list.agent}`] = value(list.native, "count");
    metrics[`tool_list_tokens_text_${list.agent}`] = value(list.text, "count");
    metrics[`tool_list_tokens_text_vs_native_ratio_${list.agent}`] = value(list.native === 0 ? 0 : list.text / list.native, "ratio");
  }
  const native = lists.reduce((sum, l) => sum + l.native, 0);
  const text = lists.reduce((sum, l) => sum + l.text, 0);
  metrics.tool_list_tokens_text_vs_native_ratio = value(native === 0 ? 0 : text / native, "ratio");
  return metrics;
}
