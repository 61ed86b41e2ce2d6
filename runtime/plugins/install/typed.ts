import { PluginError } from "../../errors.js";
import type { ToolDescriptor } from "../../sandbox/index.js";
import { readComponentImports } from "../component-imports.js";
import type { PluginManifest } from "../manifest.js";
import { readComponentTypes, readTypedTools } from "../typed/index.js";

/**
 * A typed component's tools as descriptors (schemas from its WIT types; capabilities and risk
 * from its manifest, which must name every exported function and nothing else), and its real
 * imports less the interfaces it imports only types from (the host serves nothing for those).
 */
export function typedDescriptors(manifest: PluginManifest, bytes: Uint8Array): { descriptors: ToolDescriptor[]; imports: string[] } {
  const label = `plugin ${manifest.name}`;
  const { tools, types } = readTypedTools(bytes, label);
  const exported = new Set(tools.map((t) => t.name));
  const missing = tools.filter((t) => !Object.hasOwn(manifest.tools, t.name));
  if (missing.length > 0) {
    throw new PluginError(
      "tool_undeclared",
      `${label}: the component exports ${missing.map((t) => t.name).join(", ")}, not declared in plugin.json tools; every typed export is a tool and needs its risk (and capabilities) there`,
    );
  }
  const extra = Object.keys(manifest.tools).filter((name) => !exported.has(name));
  if (extra.length > 0) throw new PluginError("tool_not_exported", `${label}: plugin.json declares ${extra.join(", ")}, which the component does not export (it exports ${[...exported].join(", ")})`);
  const descriptors = tools.map((t) => {
    const declared = manifest.tools[t.name]!;
    return { name: t.name, description: t.description, inputSchema: JSON.stringify(t.inputSchema), capabilities: [...(declared.capabilities ?? [])], risk: declared.risk };
  });
  const typeOnly = new Set(types.typeOnlyImports);
  const imports = readComponentImports(bytes, label).map((i) => i.name).filter((name) => !typeOnly.has(name));
  return { descriptors, imports };
}

/**
 * A component installed as a describe/call plugin must export that contract: one exporting only
 * typed functions is refused here with what to change, not left to fail at its first describe.
 */
export function checkToolsContract(manifest: PluginManifest, bytes: Uint8Array): void {
  const types = readComponentTypes(bytes, `plugin ${manifest.name}`);
  if (types.toolsContract || types.exports.length === 0) return;
  throw new PluginError(
    "contract_mismatch",
    `plugin ${manifest.name}: the component exports typed functions (${types.exports.slice(0, 5).map((e) => e.name).join(", ")}), not clawhive:plugin/tools; say "contract": "typed" in plugin.json and list each function under tools, or install the .wasm without a manifest to have one proposed`,
  );
}
