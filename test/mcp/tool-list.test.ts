/**
 * The schemas the MCP server offers are read by an MCP client in the dialect they name, else as
 * 2020-12 (MCP 2025-11-25). A plugin's schema without `$schema` is draft-07 to clawhive, so it is
 * offered naming draft-07: a client checking an input by the offered schema decides as the
 * run's own check will. An MCP server's tool passed on, and a schema naming its dialect, go as
 * they came. Each case beside its control.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { compileToolSchema, MCP_SCHEMA_DIALECT } from "../../runtime/json/index.js";
import { mcpTools } from "../../runtime/mcp/tool-list.js";
import { checkToolInput } from "../../runtime/runs/tool-input.js";
import type { ToolInfo } from "../../runtime/runs/types.js";

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";

/** A draft-07 tuple: 2020-12 ignores `items: [...]`'s meaning (and `additionalItems`). */
const tuple = { type: "object", properties: { pair: { type: "array", items: [{ type: "number" }, { type: "string" }], additionalItems: false } }, required: ["pair"] };

function tool(inputSchema: unknown, options: { mcp?: boolean } = {}): ToolInfo {
  return {
    plugin: "p",
    name: "run",
    qualifiedName: "p.run",
    description: "d",
    inputSchema,
    capabilities: [],
    risk: "safe",
    ...(options.mcp ? { mcp: { server: "p", mcpName: "run", hash: "h" } } : {}),
  };
}

const offered = (info: ToolInfo) => mcpTools([info])[0]!.inputSchema as Record<string, unknown>;

const cases: Array<[string, ToolInfo, string | undefined]> = [
  ["a plugin's schema without $schema is offered naming draft-07", tool(structuredClone(tuple)), DRAFT_07],
  ["control: a plugin's schema naming 2020-12 keeps it", tool({ $schema: DRAFT_2020, type: "object", properties: { t: { prefixItems: [{ type: "string" }] } } }), DRAFT_2020],
  ["control: an MCP server's tool without $schema goes as it came (2020-12 already)", tool({ type: "object", properties: { t: { prefixItems: [{ type: "string" }] } } }, { mcp: true }), undefined],
  ["control: a plugin's schema that is no object schema is offered as any object", tool({ type: "string" }), undefined],
];

for (const [what, info, dialect] of cases) {
  test(what, () => {
    const schema = offered(info);
    assert.equal(schema.$schema, dialect);
    assert.equal(schema.type, "object");
    const { $schema: _, ...rest } = schema;
    const { $schema: __, ...source } = info.inputSchema as Record<string, unknown>;
    if ((info.inputSchema as { type?: unknown }).type === "object") assert.deepEqual(rest, source, "nothing else of the schema changes");
  });
}

test("a client reading the offered schema by MCP's rules decides an input as the run's own check does", () => {
  const info = tool(structuredClone(tuple));
  const client = compileToolSchema(offered(info), { tool: "client", dialect: MCP_SCHEMA_DIALECT });
  const inputs: Array<[string, unknown, boolean]> = [
    ["control: a valid pair", { pair: [1, "a"] }, true],
    ["a pair in the wrong order", { pair: ["a", 1] }, false],
    ["a pair too long", { pair: [1, "a", 2] }, false],
  ];
  for (const [what, input, valid] of inputs) {
    assert.equal(checkToolInput(info, input) === undefined, valid, `the run: ${what}`);
    assert.equal(client(input) === undefined, valid, `the client: ${what}`);
  }
});
