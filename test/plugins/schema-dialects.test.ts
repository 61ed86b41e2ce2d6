/**
 * A plugin's tool schemas are validated in the dialect they declare, through the real install
 * path: a describe answering zod 4's JSON Schema 2020-12 (`prefixItems`, `$defs`) installs, and
 * its calls are checked by 2020-12's rules (a valid input reaches the guest, an invalid one is
 * refused before it); a schema naming a dialect clawhive cannot validate refuses the install,
 * naming the tool, instead of installing a tool nobody could call.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, test } from "node:test";
import { z } from "zod";
import type { Runtime } from "../../runtime/index.js";
import { extismModulePackage } from "../helpers/extism-modules.js";
import { defineTestAgent, testRuntime } from "../helpers/runtime.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
const dirs: string[] = [];

before(async () => {
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 20_000 } }));
});
after(async () => {
  await dispose?.();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function install(name: string, inputSchema: unknown) {
  const pkg = await extismModulePackage(name, { inputSchema });
  dirs.push(pkg.dir);
  return runtime.installPlugin(pkg.dir);
}

test("a plugin whose describe answers zod 4's 2020-12 schema installs, and its calls are validated by 2020-12", async () => {
  const Point = z.object({ x: z.number() });
  const schema = z.toJSONSchema(z.object({ pair: z.tuple([z.number(), z.string()]), from: Point, to: Point }), { reused: "ref" });
  assert.equal((schema as { $schema?: string }).$schema, "https://json-schema.org/draft/2020-12/schema");
  await install("zodded", schema);
  await defineTestAgent(runtime, "zodder", { plugins: ["zodded"] });
  const run = await runtime.startRun({ agent: "zodder" });
  try {
    const ok = await run.callTool("zodded.run", { pair: [1, "a"], from: { x: 1 }, to: { x: 2 } });
    assert.deepEqual(ok.status === "ok" && ok.output, "reached", JSON.stringify(ok));
    const refused: Array<[Record<string, unknown>, RegExp]> = [
      [{ pair: ["a", 1], from: { x: 1 }, to: { x: 2 } }, /input\.pair\[0\]: must be number/],
      [{ pair: [1, "a", 2], from: { x: 1 }, to: { x: 2 } }, /input\.pair: must NOT have more than 2 items/],
      [{ pair: [1, "a"], from: { x: "1" }, to: { x: 2 } }, /input\.from\.x: must be number/],
    ];
    for (const [input, message] of refused) {
      const outcome = await run.callTool("zodded.run", input);
      assert.equal(outcome.status === "error" && outcome.error.kind, "invalid-input", JSON.stringify(outcome));
      assert.match(outcome.status === "error" ? outcome.error.message : "", message);
    }
  } finally {
    await run.end();
  }
});

test("a schema naming an unknown dialect refuses the install, naming the tool; control: draft-07 named installs", async () => {
  await assert.rejects(install("alien", { $schema: "https://example.com/my-dialect", type: "object" }), (e: Error & { code?: string }) => {
    assert.equal(e.code, "tool_schema_invalid");
    assert.match(e.message, /plugin alien: tool run: its \$schema "https:\/\/example\.com\/my-dialect" names a JSON Schema dialect clawhive cannot validate/);
    return true;
  });
  await assert.rejects(install("bad2020", { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { t: { items: [{}] } } }), /tool run: its input schema does not compile as JSON Schema 2020-12/);
  const installed = await install("seven", { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { t: { items: [{ type: "string" }] } } });
  assert.equal(installed.plugin.name, "seven");
});
