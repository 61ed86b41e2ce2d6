/**
 * The same client calls, in this process over a Runtime and over HTTP to a server on that same
 * runtime: each row runs against both and must give the same answer, or the same refusal with
 * the same code, status and field.
 */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { httpClient, ServerError, type ClawhiveClient, type RunView } from "../../runtime/client/index.js";
import { inProcessClient } from "../../runtime/client/in-process.js";
import { apiFixture, type ApiFixture } from "../api/routes-fixtures.js";
import { echoComponent, writePackage } from "../helpers/plugin-packages.js";
import { defineTestAgent } from "../helpers/runtime.js";

let f: ApiFixture;
let clients: Array<[string, ClawhiveClient]>;

before(async () => {
  f = await apiFixture({ app: { onApprovalDecided: (approval) => void f.runtime.continueRun(approval.runId).catch(() => undefined) } });
  const work = join(f.dataDir, "work");
  await mkdir(work);
  await writeFile(join(work, "a.txt"), "a");
  await defineTestAgent(f.runtime, "writer", { mounts: [{ guest: "/work", host: work, mode: "rw" }] });
  clients = [
    ["in-process", inProcessClient(f.runtime)],
    ["http", httpClient({ url: f.server.base, token: f.token.admin })],
  ];
});
after(async () => {
  for (const [, client] of clients ?? []) await client.close();
  await f?.close();
});

/** The answer of `call` on each client: a value, or the refusal's code, status and field. */
async function both<T>(call: (client: ClawhiveClient) => Promise<T>): Promise<Array<T | { refused: { code: string; status: number; field: string | undefined } }>> {
  const out = [];
  for (const [, client] of clients) {
    try {
      out.push(await call(client));
    } catch (error) {
      if (!(error instanceof ServerError)) throw error;
      out.push({ refused: { code: error.code, status: error.status, field: error.field } });
    }
  }
  return out;
}

/** The run once it has ended or waits for a person. */
async function settled(client: ClawhiveClient, id: string, status: RunView["status"] | "settled" = "settled"): Promise<RunView> {
  for (let i = 0; i < 2000; i++) {
    const run = await client.getRun(id);
    if (status === "settled" ? run.status !== "active" : run.status === status) return run;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`run ${id} did not settle`);
}

/** The run's events, read to the stream's end (the run has ended). */
async function eventTypes(client: ClawhiveClient, id: string): Promise<string[]> {
  const types: string[] = [];
  for await (const event of client.runEvents(id)) types.push(event.type);
  return types;
}

describe("one client, two ways to reach the runtime", () => {
  it("reads give the same answers", async () => {
    const rows: Array<[string, (c: ClawhiveClient) => Promise<unknown>]> = [
      ["tools", (c) => c.listTools()],
      ["tools of an agent", (c) => c.listTools({ agent: "writer" })],
      ["agents", (c) => c.listAgents()],
      ["one agent", (c) => c.getAgent("writer")],
      ["plugins", (c) => c.listPlugins()],
      ["one plugin", (c) => c.getPlugin("files")],
      ["secrets", (c) => c.listSecrets()],
      ["audit verify", (c) => c.verifyAudit()],
    ];
    for (const [name, call] of rows) {
      const [inProcess, http] = await both(call);
      assert.ok(!(typeof inProcess === "object" && inProcess !== null && "refused" in inProcess), `${name}: ${JSON.stringify(inProcess)}`);
      assert.deepEqual(inProcess, http, name);
    }
    const tools = (await clients[0]![1].listTools()).map((t) => t.name);
    assert.ok(tools.includes("files.read_file"), tools.join(" "));
  });

  it("refusals carry the same code, status and field", async () => {
    const rows: Array<[string, (c: ClawhiveClient) => Promise<unknown>, { code: RegExp; status: number }]> = [
      ["unknown plugin", (c) => c.getPlugin("nope"), { code: /not_found$/, status: 404 }],
      ["unknown run", (c) => c.getRun("run_nope"), { code: /not_found$/, status: 404 }],
      ["unknown approval", (c) => c.decideApproval("apr_nope", { decision: "deny" }), { code: /^approval_not_found$/, status: 404 }],
      ["unknown secret", (c) => c.removeSecret("nope"), { code: /not_found$/, status: 404 }],
      ["bad secret name", (c) => c.setSecret("no spaces please", "v"), { code: /^invalid_input$/, status: 400 }],
      ["tools of an unknown agent", (c) => c.listTools({ agent: "nobody" }), { code: /not_found$/, status: 404 }],
      ["a run of an unknown agent", (c) => c.submitRun({ agent: "nobody", tool_calls: [{ name: "files.list_dir", input: { path: "/work" } }] }), { code: /not_found$/, status: 404 }],
    ];
    for (const [name, call, expected] of rows) {
      const [inProcess, http] = await both(call);
      assert.deepEqual(inProcess, http, name);
      const refused = (inProcess as { refused?: { code: string; status: number } }).refused;
      assert.ok(refused, `${name}: expected a refusal, got ${JSON.stringify(inProcess)}`);
      assert.match(refused.code, expected.code, name);
      assert.equal(refused.status, expected.status, name);
    }
  });

  it("a change through one is seen through the other", async () => {
    for (const [name, client] of clients) {
      const secret = `made_by_${name.replace("-", "_")}`;
      const { secret: made } = await client.setSecret(secret, "a-secret-value-of-some-length");
      assert.equal(made.name, secret);
      const [a, b] = await both((c) => c.listSecrets());
      assert.deepEqual(a, b);
      assert.ok((a as Array<{ name: string }>).some((s) => s.name === secret));
      await client.removeSecret(secret);
    }
  });

  it("runs: started, followed to their end, decided and cancelled alike", async () => {
    for (const [name, client] of clients) {
      const listed = await client.submitRun({ agent: "writer", tool_calls: [{ name: "files.list_dir", input: { path: "/work" } }] });
      const done = await settled(client, listed.id);
      assert.equal(done.status, "ended", name);
      assert.equal(done.end_reason, "completed", name);
      const [a, b] = await both((c) => c.getRun(listed.id));
      assert.deepEqual(a, b, name);
      const [ea, eb] = await both((c) => eventTypes(c, listed.id));
      assert.deepEqual(ea, eb, name);
      assert.equal((ea as string[]).at(-1), "run-ended", name);

      // A guarded write waits for a person; approved through this client, the run goes on.
      const write = await client.submitRun({ agent: "writer", tool_calls: [{ name: "files.write_file", input: { path: `/work/${name}.txt`, content: name } }] });
      const waiting = await settled(client, write.id);
      assert.equal(waiting.status, "awaiting_approval", name);
      const [pa, pb] = await both((c) => c.listApprovals({ runId: write.id }));
      assert.deepEqual(pa, pb, name);
      const approvalId = waiting.pending_approval!.id;
      const decided = await client.decideApproval(approvalId, { decision: "approve", reason: "checked" });
      assert.equal(decided.status, "approved", name);
      const after = await settled(client, write.id, "ended");
      assert.equal(after.end_reason, "completed", name);
      // Control: deciding it again is refused, the same way on both.
      const [again1, again2] = await both((c) => c.decideApproval(approvalId, { decision: "deny" }));
      assert.deepEqual(again1, again2, name);
      assert.equal((again1 as { refused: { status: number } }).refused.status, 409, name);

      const held = await client.submitRun({ agent: "writer", tool_calls: [{ name: "files.write_file", input: { path: `/work/${name}-2.txt`, content: name } }] });
      await settled(client, held.id);
      const cancelled = await client.cancelRun(held.id);
      assert.equal(cancelled.status, "ended", name);
      assert.equal(cancelled.end_reason, "cancelled", name);
    }
    const [a, b] = await both((c) => c.auditPage({ limit: 50 }));
    assert.deepEqual(a, b);
  });

  it("agents: stored, validated, refused and removed alike", async () => {
    const text = (name: string) => `name: ${name}\ndescription: Stored through a client.\nmodel: { provider: anthropic, id: none }\nsystem_prompt: Not used.\nplugins:\n  - { name: files, version: "*" }\ngrants:\n  log: {}\n`;
    for (const [name, client] of clients) {
      const agent = `stored-${name}`;
      const [va, vb] = await both((c) => c.validateAgent({ text: text(agent), format: "yaml" }, { name: agent }));
      assert.deepEqual(va, vb, name);
      assert.equal((va as { valid: boolean }).valid, true, name);
      const [ia, ib] = await both((c) => c.validateAgent({ text: text(agent).replace("log: {}", "log: 3"), format: "yaml" }));
      assert.deepEqual(ia, ib, name);
      assert.equal((ia as { valid: boolean }).valid, false, name);
      const put = await client.putAgent(agent, { text: text(agent), format: "yaml" });
      assert.equal(put.agent.origin, "store", name);
      const [ga, gb] = await both((c) => c.getAgent(agent));
      assert.deepEqual(ga, gb, name);
      // A name the runtime defines is not the store's to replace or remove.
      const [ra, rb] = await both((c) => c.putAgent("writer", { text: text("writer"), format: "yaml" }));
      assert.deepEqual(ra, rb, name);
      assert.equal((ra as { refused: { status: number } }).refused.status, 409, name);
      const removed = await client.removeAgent(agent);
      assert.equal(removed.name, agent, name);
      const [na, nb] = await both((c) => c.removeAgent(agent));
      assert.deepEqual(na, nb, name);
      assert.equal((na as { refused: { status: number } }).refused.status, 404, name);
    }
  });

  it("plugins: installed from a folder, upgraded, removed alike; only the origin tells how the bytes came", async () => {
    const echo = await echoComponent();
    const v1 = await writePackage(f.dataDir, "client-echo-v1", echo.manifest, echo.bytes);
    const v2 = await writePackage(f.dataDir, "client-echo-v2", { ...echo.manifest, version: "0.2.0", capabilities: ["fs.read", "kv", "log"] }, echo.bytes);
    const tokenOrigin = /^upload by tok_/;
    for (const [name, client] of clients) {
      const installed = await client.installPlugin(v1);
      assert.equal(installed.action, "installed", name);
      // In this process the runtime reads the folder; over HTTP it is packed and uploaded.
      assert.ok(name === "in-process" ? installed.plugin.origin === v1 : tokenOrigin.test(installed.plugin.origin), `${name}: ${installed.plugin.origin}`);
      const [a, b] = await both((c) => c.getPlugin("bench-echo"));
      assert.deepEqual(a, b, name);
      const [wa, wb] = await both((c) => c.upgradePlugin("bench-echo", v2));
      assert.deepEqual(wa, wb, name);
      assert.equal((wa as { refused: { code: string } }).refused.code, "upgrade_needs_acceptance", name);
      const upgraded = await client.upgradePlugin("bench-echo", v2, { accept: true });
      assert.deepEqual([upgraded.action, upgraded.plugin.version, upgraded.diff?.lines], ["upgraded", "0.2.0", ["+ capability log"]], name);
      const removed = await client.removePlugin("bench-echo");
      assert.equal(removed.version, "0.2.0", name);
      const [ga, gb] = await both((c) => c.removePlugin("bench-echo"));
      assert.deepEqual(ga, gb, name);
      assert.equal((ga as { refused: { status: number } }).refused.status, 404, name);
    }
  });

  it("the HTTP client refuses a token the server does not know; the right one passes", async () => {
    const wrong = httpClient({ url: f.server.base, token: "chv_not_a_token_of_this_server" });
    await assert.rejects(wrong.listTools(), (error: unknown) => error instanceof ServerError && error.status === 401);
    assert.ok((await clients[1]![1].listTools()).length > 0);
    assert.throws(() => httpClient({ url: "ftp://example.com", token: "x" }), /url: expected an http/);
    assert.throws(() => httpClient({ url: f.server.base, token: "has space" }), /token: expected an API token/);
  });
});
