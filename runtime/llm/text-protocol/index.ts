/** The text tool protocol (model.tool_protocol: text): tool calls as elements in the model's text. */
export { TextToolProvider, textRequest, withToolProtocol } from "./provider.js";
export type { TextToolProviderOptions, ToolProtocol } from "./provider.js";
export { parseToolCalls, readArguments } from "./parse.js";
export { CallMarkupFilter } from "./stream-filter.js";
export { toolLine, toolListPrompt, schemaType } from "./signature.js";
export { toTextMessages } from "./transcript.js";
