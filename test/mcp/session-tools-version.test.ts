/**
 * An MCP session looks at its tools' sources once per `tools/call` (one statement) and reloads
 * plugins and pins only when that look says they changed: an upgrade made by another runtime on
 * the same store (another process, another node) takes effect at the next call, with no watch
 * timer to help it; a call with nothing changed reloads nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Runtime } from "../../runtime/index.js";
import { McpSession } from "../../runtime/mcp/index.js";
import { echoComponent, writePackage } from "../helpers/plugin-packages.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";

let runtime: Runtime;
let other: Runtime;
let dispose: () => Promise<void>;
let packages: string;
let echo: Awaited<ReturnType<typeof echoComponent>>;

before(async () => {
  const made = await testRuntime();
  runtime = made.runtime;
  dispose = made.dispose;
  echo = await echoComponent();
  packages = await tempDir("clawhive-mcp-version-");
  await runtime.installPlugin(await writePackage(packages, "v1", { ...echo.manifest, name: "echoer", version: "0.1.0" }, echo.bytes));
  await defineTestAgent(runtime, "echoing", { plugins: ["echoer"] });
  // A second runtime on the same store, as another process or node would be.
  other = await Runtime.create({ dataDir: made.dataDir, agentsDir: join(made.dataDir, "agents"), pluginDirs: [], sandbox: { poolSize: 0 } });
});

after(async () => {
  await other.close();
  await dispose();
});

test("an upgrade by another runtime on the same store takes effect at the session's next call; an unchanged call reloads nothing", async () => {
  const session = await McpSession.open(runtime, { agent: "echoing", version: "test", mayApprove: false, decidedBy: "test", watchMs: 0 });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.connect(serverSide, "pipe");
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(clientSide);
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
  const call = () => client.callTool({ name: "echoer__echo", arguments: { text: "hi" } });
  try {
    const first = session.run.id;
    assert.equal((await call()).isError, undefined);

    // Control: nothing changed, so the call reads the sources' version once and reloads nothing.
    let reads = 0;
    const store = runtime.store;
    const execute = store.execute.bind(store);
    store.execute = (statement) => {
      const sql = typeof statement === "string" ? statement : statement.sql;
      if (/\bFROM (plugins|mcp_pins)\b/.test(sql)) reads++;
      return execute(statement);
    };
    try {
      assert.equal((await call()).isError, undefined);
      assert.equal(reads, 1, "one look at the tools' version");
      assert.equal(session.run.id, first, "the same run serves an unchanged agent");
      assert.equal(changed, 0);

      await other.upgradePlugin("echoer", await writePackage(packages, "v2", { ...echo.manifest, name: "echoer", version: "0.2.0" }, echo.bytes));
      reads = 0;
      const upgraded = await call();
      assert.equal(upgraded.isError, undefined, JSON.stringify(upgraded));
      assert.ok(reads > 1, "the change was seen, and plugins and pins reloaded");
    } finally {
      store.execute = execute;
    }
    assert.notEqual(session.run.id, first, "the call after the upgrade runs in a new run");
    assert.equal(runtime.plugins().find((p) => p.name === "echoer")?.version, "0.2.0");
    assert.equal((await runtime.records.get(first))?.status, "ended", "the first run ended with its tools");
    await waitFor(() => changed > 0, "tools/list_changed arrives");
  } finally {
    await client.close();
    await session.close();
  }
});

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
