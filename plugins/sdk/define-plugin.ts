import { checkInput } from "./check-input.js";
import { toJson } from "./to-json.js";
import { toToolError } from "./to-tool-error.js";
import { fail } from "./tool-failure.js";
import type { AnyToolDefinition, InputSchema, PluginDefinition, ToolDefinition, ToolDescriptor, ToolsExport } from "./types.js";

/**
 * Declares one tool; the type of `run`'s input is read off `inputSchema`.
 * Returns `tool` unchanged.
 */
export function defineTool<const S extends InputSchema>(tool: ToolDefinition<S>): ToolDefinition<S> {
  return tool;
}

function parseInput(input: string): unknown {
  try {
    return JSON.parse(input) as unknown;
  } catch (e) {
    throw fail.invalidInput(`input: is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function runTool(name: string, tool: AnyToolDefinition, input: string): string {
  const checked = checkInput(tool.inputSchema, parseInput(input));
  const result: unknown = (tool.run as (input: Record<string, unknown>) => unknown)(checked);
  if (typeof result === "object" && result !== null && typeof (result as { then?: unknown }).then === "function") {
    throw fail.failed(`tool ${name}: returned a promise; tools must be synchronous in the guest`);
  }
  return toJson(result);
}

/**
 * Builds the `tools` export of a plugin component from its tool definitions:
 *
 * ```ts
 * export const tools = definePlugin({ tools: { read_file: readFile } });
 * ```
 *
 * `call` parses and checks the input, runs the tool and returns its result as JSON. Whatever
 * the tool throws leaves as a `tool-error` value, never as an `Error`: an `Error` escaping an
 * export traps the instance.
 */
export function definePlugin(plugin: PluginDefinition): ToolsExport {
  const tools = new Map(Object.entries(plugin.tools));
  const descriptors: readonly ToolDescriptor[] = [...tools].map(([name, tool]) => ({
    name,
    description: tool.description,
    inputSchema: JSON.stringify(tool.inputSchema),
    capabilities: [...tool.capabilities],
    risk: tool.risk,
  }));
  return {
    describe() {
      // Fresh copies: the caller may keep or change what it gets.
      return descriptors.map((d) => ({ ...d, capabilities: [...d.capabilities] }));
    },
    call(name, input) {
      try {
        const tool = tools.get(name);
        if (tool === undefined) {
          throw fail.notFound(`tool "${name}": this plugin has no such tool (tools: ${[...tools.keys()].join(", ")})`);
        }
        return runTool(name, tool, input);
      } catch (e) {
        throw toToolError(e);
      }
    },
  };
}
