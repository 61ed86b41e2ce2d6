/**
 * The JSON Schema of the config file, generated from the valibot schema so the two cannot
 * drift (editors: `# yaml-language-server: $schema=…`, or `"$schema"` in a JSON file). What
 * JSON Schema cannot say (the listen address's shape, the store URL's rules, non-loopback needs
 * `allow_non_loopback`) is left out of it and still checked at load.
 */
import { toJsonSchema, type JsonSchema } from "@valibot/to-json-schema";
import { ConfigFileSchema } from "./schema.js";

export function configJsonSchema(): JsonSchema {
  const { $schema, ...rest } = toJsonSchema(ConfigFileSchema, { target: "draft-07", typeMode: "input", errorMode: "ignore" });
  return { $schema, title: "clawhive configuration", description: "clawhive.yaml: where state lives, the API's address and limits, the sandbox's sizes.", ...rest };
}

/** Stable key order, two-space indent, final newline. */
export function renderConfigJsonSchema(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
