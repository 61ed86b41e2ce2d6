export { Sandbox } from "./sandbox.js";
export { Instance, GuestToolError } from "./instance.js";
export type { Binding, SandboxEvent, SandboxOptions, SandboxPlugin, ToolDescriptor } from "./types.js";
