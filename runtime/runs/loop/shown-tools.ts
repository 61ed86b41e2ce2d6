/** What one Step shows of a run's tools, with `tool_retrieval` (see tool-retrieval.ts). */
import type { ToolSpec, ToolUseBlock } from "../../llm/index.js";
import type { Run } from "../run.js";
import type { ToolInfo } from "../types.js";
import type { LoopState } from "./state.js";
import { offersToolSearch, pinTools, retrievalQuery, TOOL_SEARCH_SPEC, type ToolRetrieval } from "./tool-retrieval.js";

/**
 * The tools one Step shows: all of the run's, or with `tool_retrieval` the most relevant to the
 * conversation so far (`task` and the state's messages) and the `tools.search` meta-tool.
 */
export async function shownTools(run: Run, state: LoopState, retrieval: ToolRetrieval | undefined, task: string): Promise<{ tools: readonly ToolInfo[]; extra: ToolSpec[] }> {
  const settings = run.agent.tool_retrieval;
  if (settings === undefined || retrieval === undefined || !offersToolSearch(run.tools)) return { tools: run.tools, extra: [] };
  const tools = await retrieval.select(run.tools, settings, { query: retrievalQuery(task, state.messages), pinned: state.pinnedTools ?? [] });
  return { tools, extra: tools.length < run.tools.length ? [TOOL_SEARCH_SPEC as unknown as ToolSpec] : [] };
}

/** With tool retrieval, a tool the model called stays shown in the run's later Steps. */
export function pinCalledTools(run: Run, state: LoopState, uses: readonly ToolUseBlock[]): void {
  if (run.agent.tool_retrieval === undefined) return;
  pinTools((state.pinnedTools ??= []), uses.filter((use) => run.tools.some((t) => t.qualifiedName === use.name)).map((use) => use.name));
}
