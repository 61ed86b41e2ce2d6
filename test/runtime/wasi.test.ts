/**
 * WASI effects in a whole runtime: a component built with WASI on (wasi-probe) and the C tool
 * built for wasip1 (c-notes), installed through the same path as every plugin. Their requests
 * and file opens hit the same policy and the same audit as a clawhive:host call.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Runtime, ToolCallOutcome } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { buildCPlugin } from "../helpers/c-plugin.js";
import type { ExtismPackage } from "../helpers/extism-probe.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;
let pkg: ExtismPackage;
let server: Server;
let port = 0;
let n = 0;

before(async () => {
  server = createServer((_req, res) => res.end("pong"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  pkg = await buildCPlugin();
  ({ runtime, dispose } = await testRuntime({ pluginDirs: [join(PROJECT_ROOT, "test", "plugins", "wasi-probe"), pkg.dir], sandbox: { callTimeoutMs: 20_000 } }));
  work = await tempDir();
  await writeFile(join(work, "note.txt"), "remember the milk");
});
after(async () => {
  await dispose?.();
  await new Promise((resolve) => server.close(resolve));
  await rm(work, { recursive: true, force: true });
  await rm(pkg.dir, { recursive: true, force: true });
});

const agent = () =>
  defineTestAgent(runtime, `wasi${++n}`, {
    mounts: [{ guest: "/work", host: work, mode: "rw" }],
    plugins: ["wasi-probe", "c-notes"],
    lowerToSafe: ["wasi-probe.write", "wasi-probe.fetch", "c-notes.fetch", "c-notes.read_note"],
    extraGrants: { "http.fetch": { schemes: ["http"], hosts: ["127.0.0.1"], ports: [port], allow_addresses: ["127.0.0.1"] } },
  });

async function hostRecords(runId: string) {
  return (await runtime.audit.query({ runId, kind: "host_call", limit: 100 })).records;
}

const tools: Array<{ plugin: string; fetch: string; read: string }> = [
  { plugin: "a WASI 0.2 component", fetch: "wasi-probe.fetch", read: "wasi-probe.read" },
  { plugin: "an Extism wasip1 module", fetch: "c-notes.fetch", read: "c-notes.read_note" },
];

for (const tool of tools) {
  describe(`${tool.plugin}: its effects hit the same policy and audit`, () => {
    it("control: a granted host is fetched and the fetch is audited as allowed", async () => {
      const run = await runtime.startRun({ agent: await agent() });
      const outcome = await run.callTool(tool.fetch, { url: `http://127.0.0.1:${port}/ping` });
      assert.equal(outcome.status, "ok", JSON.stringify(outcome));
      assert.match(JSON.stringify(outcome), /pong/);
      const records = await hostRecords(run.id);
      const intent = records.find((r) => r.status === "intent" && r.hostCall?.proxy === "http" && JSON.stringify(r.args).includes("/ping"));
      assert.ok(intent, JSON.stringify(records));
      assert.ok(records.some((r) => r.status === "ok" && r.intentSeq === intent.seq));
      assert.deepEqual(records.filter((r) => r.status === "denied"), []);
      await run.end();
    });
    for (const [name, url] of [["an undeclared host", "http://example.com/"], ["the metadata address", "http://169.254.169.254/latest/meta-data/"]] as const) {
      it(`${name} is refused and audited as denied`, async () => {
        const run = await runtime.startRun({ agent: await agent() });
        const outcome: ToolCallOutcome = await run.callTool(tool.fetch, { url });
        assert.equal(outcome.status, "error", JSON.stringify(outcome));
        const denied = (await hostRecords(run.id)).filter((r) => r.status === "denied");
        assert.equal(denied.length, 1, JSON.stringify(denied));
        assert.equal(denied[0]!.denial?.capability, "http.fetch");
        await run.end();
      });
    }
    it("control: a file inside the mount is read", async () => {
      const run = await runtime.startRun({ agent: await agent() });
      const path = tool.read.startsWith("wasi-probe") ? "note.txt" : "/work/note.txt";
      const outcome = await run.callTool(tool.read, { path });
      assert.equal(outcome.status, "ok", JSON.stringify(outcome));
      assert.match(JSON.stringify(outcome), /remember the milk/);
      await run.end();
    });
    it("a path outside the mount is refused", async () => {
      const run = await runtime.startRun({ agent: await agent() });
      const path = tool.read.startsWith("wasi-probe") ? "../../etc/passwd" : "/work/../../etc/passwd";
      const outcome = await run.callTool(tool.read, { path });
      assert.equal(outcome.status, "error", JSON.stringify(outcome));
      assert.ok(!JSON.stringify(outcome).includes("root:"));
      await run.end();
    });
  });
}
