/**
 * The clawhive plugin SDK: what a plugin's source imports to build the `tools` export of its
 * component. Runs in the guest (plain ES2022, no Node API); host access goes through
 * `clawhive:host/*` imports only (declared in `host.d.ts`). Nothing here imports a host
 * interface, so any plugin can use it; fs helpers are in `fs.ts`.
 */
export { defineTool, definePlugin } from "./define-plugin.js";
export { fail, ToolFailure } from "./tool-failure.js";
export { hostError } from "./host-error.js";
export { toToolError } from "./to-tool-error.js";
export { decodeText } from "./decode.js";
// fs helpers (readText, writeText, resolvePath, …) are in `./fs.js`: only for fs-world plugins.
export type {
  AnyToolDefinition,
  Denial,
  InputOf,
  InputSchema,
  JsonType,
  PluginDefinition,
  PropertySchema,
  Risk,
  ToolDefinition,
  ToolDescriptor,
  ToolError,
  ToolsExport,
  ValueOf,
} from "./types.js";
export type { HostError } from "clawhive:host/types@0.1.1";
