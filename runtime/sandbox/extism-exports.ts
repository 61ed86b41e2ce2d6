/**
 * An Extism plugin as the Extism PDKs build it: one exported function per tool, reading its
 * input and setting its output through the kernel, with no `describe`/`call` of the mcp.run
 * servlet shape. Its tools are the ones plugin.json lists (each must be an exported function);
 * a tool's input is `{"input": "..."}`, passed to the function as its raw Extism input, and the
 * function's output is the tool's result text — what `extism call <wasm> <fn> --input` does.
 */
import { WRAPPED_INPUT_JSON, type ExtismToolDefaults } from "./extism-shapes.js";
import type { ToolDescriptor } from "./types.js";
import { parseBounded } from "../json/index.js";

export const EXPORT_INPUT_SCHEMA = {
  type: "object",
  properties: { input: { type: "string", description: "the function's Extism input, passed as it is" } },
  required: ["input"],
  additionalProperties: false,
};

/** The tools of a plugin of exported functions: plugin.json's, each checked to be an exported function. */
export function describeExports(module: WebAssembly.Module, defaults: ExtismToolDefaults): ToolDescriptor[] {
  const functions = new Set(WebAssembly.Module.exports(module).filter((e) => e.kind === "function").map((e) => e.name));
  return Object.entries(defaults.risks).map(([name, risk]) => {
    if (!functions.has(name)) throw new TypeError(`tool ${name} (plugin.json) is not a function the module exports; it exports ${[...functions].slice(0, 20).join(", ") || "none"}`);
    return { name, description: `the plugin's exported function ${name}`, inputSchema: JSON.stringify(EXPORT_INPUT_SCHEMA), capabilities: [...defaults.capabilities], risk };
  });
}

/** The raw input of a call to exported function `name`, or why there is none. */
export function exportInput(name: string, input: string, defaults: ExtismToolDefaults): { ok: true; value: string } | { ok: false; tag: "invalid-input" | "not-found"; message: string } {
  if (!Object.hasOwn(defaults.risks, name)) return { ok: false, tag: "not-found", message: `no tool ${name}` };
  const parsed = parseBounded(input === "" ? "{}" : input, WRAPPED_INPUT_JSON);
  const value = parsed.ok && parsed.value !== null && typeof parsed.value === "object" ? (parsed.value as { input?: unknown }).input : undefined;
  if (typeof value !== "string") return { ok: false, tag: "invalid-input", message: 'expected {"input": "<text>"}' };
  return { ok: true, value };
}
