/** Typed WIT exports as tools: types read from the component binary, JSON Schemas, JSON ⇄ jco values. */
import { PluginError } from "../../errors.js";
import { readVerifiedBlob, type PluginArtifact } from "../artifact.js";
import { readComponentTypes, type ComponentTypes } from "./component-types.js";
import { typedTools, type TypedTool, type TypedToolSchema } from "./schema.js";

export { readComponentTypes } from "./component-types.js";
export type { ComponentTypes } from "./component-types.js";
export { exportLabel, toolNameOf, typedTools, UnmappableExport } from "./schema.js";
export type { TypedTool, TypedToolSchema } from "./schema.js";
export { lift, lower, lowerArguments, LowerError } from "./convert.js";
export type { TypedExport, WitFunction, WitType } from "./wit-types.js";

/** A component's typed exports as tools, refused (naming the function and type) when one cannot be a tool. */
export function readTypedTools(bytes: Uint8Array, label: string): { tools: TypedToolSchema[]; types: ComponentTypes } {
  const types = readComponentTypes(bytes, label);
  if (types.toolsContract) {
    throw new PluginError("contract_mismatch", `${label}: the component exports clawhive:plugin/tools (the describe/call contract); its manifest says contract: typed — remove that line`);
  }
  if (types.exports.length === 0) throw new PluginError("wit_no_exports", `${label}: the component exports no functions, so it has no tools`);
  try {
    return { tools: typedTools(types.exports), types };
  } catch (error) {
    if (error instanceof PluginError) throw new PluginError(error.code, `${label}: ${error.message}`);
    throw error;
  }
}

/** The plan the sandbox worker calls a typed plugin's tools with, read from its verified blob. */
export async function typedToolsOf(artifact: PluginArtifact): Promise<Record<string, TypedTool>> {
  const bytes = new Uint8Array(await readVerifiedBlob(artifact));
  const { tools } = readTypedTools(bytes, `plugin ${artifact.manifest.name}`);
  return Object.fromEntries(tools.map((t) => [t.name, t.plan]));
}
