/** The AssemblyScript SDK for clawhive plugins: the tools export, JSON, the host bindings' shared parts. */
export { cabi_realloc, keptCount } from "./abi";
export { describe, call, post_describe, post_call, definePlugin, Risk, Tool } from "./tools";
export { Denial, HostError, HostResult, Outcome, ToolError } from "./tool-error";
export { JsonArray, JsonBool, JsonKind, JsonNumber, JsonObject, JsonString, JsonValue, parseJson } from "./json";
export { JsonWriter } from "./json-write";
