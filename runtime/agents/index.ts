/** Agent manifests: `capabilities/<name>.yaml`, parsed, checked and loaded. */
export { parseAgentManifest } from "./parse.js";
export type { ParseAgentOptions, ParsedAgentManifest } from "./parse.js";
export { loadAgentManifests } from "./load.js";
export type { LoadAgentOptions } from "./load.js";
export { AgentManifestSchema } from "./schema.js";
export type { AgentApprovals, AgentLimits, AgentManifest, AgentManifestInput, AgentModel, AgentPluginRef } from "./schema.js";
export { AgentManifestError } from "./issues.js";
export type { ManifestIssue } from "./issues.js";
export { DANGER_IDS } from "./danger-ids.js";
export type { DangerId } from "./danger-ids.js";
export type { DangerWarning } from "./dangers.js";
export { agentManifestJsonSchema, renderAgentManifestJsonSchema } from "./json-schema.js";
export { agentRiskOverride } from "./overrides.js";
export { referenceProblems, subAgentProblems } from "./references.js";
export type { ReferenceOptions } from "./references.js";
export { AgentStore, agentStoreMigrations, parseAgentSource, storedFile } from "./store.js";
export type { AgentFormat, PutAgentOptions, PutAgentResult, StoredAgent } from "./store.js";
