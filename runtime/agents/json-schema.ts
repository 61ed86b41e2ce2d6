/**
 * The JSON Schema of agent manifests, generated from the valibot schema so the two cannot
 * drift. Editors use it (`# yaml-language-server: $schema=./schema.json`); checks JSON Schema
 * cannot express (semver ranges, host patterns, files on disk, dangerous combinations) are
 * left out of it, and the loader still runs them.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { JsonSchema } from "@valibot/to-json-schema";
import { AgentManifestSchema } from "./schema.js";

export function agentManifestJsonSchema(): JsonSchema {
  const schema = toJsonSchema(AgentManifestSchema, { target: "draft-07", typeMode: "input", errorMode: "ignore" });
  const { $schema, ...rest } = schema;
  return {
    $schema,
    title: "clawhive agent manifest",
    description: "capabilities/<name>.yaml: an agent's model, plugins, capability grants, limits and approvals.",
    ...rest,
  };
}

/** The text of `capabilities/schema.json`: stable key order, two-space indent, final newline. */
export function renderAgentManifestJsonSchema(): string {
  return `${JSON.stringify(agentManifestJsonSchema(), null, 2)}\n`;
}
