/** `capabilities/schema.json` is generated from the valibot schema and committed up to date. */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { agentManifestJsonSchema, renderAgentManifestJsonSchema } from "../../runtime/agents/index.js";
import { CAPABILITY_NAMES } from "../../runtime/policy/catalogue/index.js";
import { CAPABILITIES_DIR } from "./_fixtures.js";

test("schema.json: the committed file equals the generated one (regenerate: node dist/runtime/agents/write-schema.js)", async () => {
  const committed = await readFile(`${CAPABILITIES_DIR}schema.json`, "utf8");
  assert.equal(committed, renderAgentManifestJsonSchema());
});

test("schema.json: grants list every catalogue capability and no other", () => {
  const schema = agentManifestJsonSchema() as { properties: { grants: { properties: Record<string, unknown>; additionalProperties: boolean } } };
  assert.deepEqual(Object.keys(schema.properties.grants.properties), [...CAPABILITY_NAMES]);
  assert.equal(schema.properties.grants.additionalProperties, false);
});
