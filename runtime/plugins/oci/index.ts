/** Plugins as OCI artifacts: references, the artifact layout, pulling and pushing over the distribution API v2. */
export { formatOciReference, isLoopbackRegistry, isOciSource, parseOciReference } from "./reference.js";
export type { OciReference } from "./reference.js";
export { OCI_MANIFEST_TYPE, PLUGIN_ARTIFACT_TYPE, PLUGIN_MANIFEST_TYPE, PLUGIN_SIGNATURE_TYPE, pluginArtifact, pluginLayers, WASM_CONFIG_TYPE, WASM_LAYER_TYPE } from "./layout.js";
export { pullPlugin } from "./pull.js";
export type { PulledPlugin, PullOptions } from "./pull.js";
export { pushPlugin } from "./push.js";
export type { PushInput, PushResult } from "./push.js";
export { digestOf, RegistryTransport } from "./transport.js";
export type { RegistryOptions } from "./transport.js";
