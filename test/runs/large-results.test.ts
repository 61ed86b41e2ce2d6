/**
 * Tool results of every size a plugin may return (up to `sandbox.max_result_bytes`, 4 MiB by
 * default) go through a run, the API and MCP whole, and the run goes on: a plan's outcomes and
 * a run's result larger than a row are kept in parts, a result over the cap is the tool's
 * error (`result-too-large`, naming its size and the cap), never the run's end. Events, audit
 * pages and run lists with large rows are read a page at a time. On the embedded store and,
 * when it is here, a libSQL server.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import type { Runtime } from "../../runtime/index.js";
import { LazyMcpHttpSessions } from "../../runtime/mcp/index.js";
import { INLINE_BYTES } from "../../runtime/runs/records.js";
import { MAX_EVENT_BYTES } from "../../runtime/runs/event-bounds.js";
import { defineTestAgent, testRuntime } from "../helpers/runtime.js";
import { needsSqld, startSqld, type SqldServer } from "../helpers/sqld.js";
import { startFakeAnthropic } from "../helpers/fake-llm/index.js";
import { jsonCall, listen, type Listening } from "../api/fixtures.js";
import { defineLoopAgent, LLM_SECRET, wire, type Fake } from "./_loop.js";

const MiB = 1 << 20;
/** The sandbox's default result cap. */
const CAP = 4 * MiB;

/** Results the run keeps whole (the cap itself is allowed), and one past the cap it refuses. */
const KEPT = [
  { label: "1 MiB", bytes: MiB },
  { label: "2 MiB", bytes: 2 * MiB },
  { label: "just under the cap (control)", bytes: CAP - 1 },
  { label: "4 MiB, the cap itself", bytes: CAP },
];
const OVER = CAP + 1;

const sqld = needsSqld();
const drivers: Array<{ label: string; skip?: string; server: boolean }> = [
  { label: "the embedded store", server: false },
  { label: "a libSQL server", ...sqld, server: true },
];

for (const driver of drivers) {
  describe(`large results on ${driver.label}`, driver.skip === undefined ? {} : { skip: driver.skip }, () => {
    let runtime: Runtime;
    let dispose: () => Promise<void>;
    let sqldServer: SqldServer | undefined;
    let api: Listening;
    let sessions: LazyMcpHttpSessions;
    let fake: Fake;
    let token = "";

    before(async () => {
      if (driver.server) sqldServer = await startSqld({ auth: true });
      ({ runtime, dispose } = await testRuntime(sqldServer ? { storeUrl: sqldServer.url, storeAuthToken: sqldServer.authToken! } : {}));
      await defineTestAgent(runtime, "big", { plugins: ["probe"] });
      fake = await startFakeAnthropic();
      await runtime.setSecret(LLM_SECRET, "test-key");
      await defineLoopAgent(runtime, "big-model", { provider: "anthropic", baseUrl: fake.baseUrl, plugins: ["probe"] });
      const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
      token = (await tokens.create("client")).token;
      sessions = new LazyMcpHttpSessions(runtime, { version: "test", pollMs: 20, watchMs: 100 });
      api = await listen(createApp({ runtime, tokens, version: "test", mcp: sessions }));
    });
    after(async () => {
      await sessions?.close();
      await api?.close();
      await fake?.close();
      await dispose?.();
      await sqldServer?.stop();
    });

    test("a plan's results of 1, 2 and 4 MiB are kept whole; one past the cap is the tool's error and the plan goes on", async () => {
      const calls = [...KEPT.map((k) => ({ name: "probe.big", input: { bytes: k.bytes } })), { name: "probe.big", input: { bytes: OVER } }, { name: "probe.echo", input: { after: "all" } }];
      const { run, settled } = await runtime.submitRun({ agent: "big", task: "large results", toolCalls: calls });
      await settled;
      const record = (await runtime.records.get(run.id))!;
      assert.equal(record.status, "ended");
      assert.equal(record.endReason, "completed", String(record.result));
      assert.equal(record.outcomes.length, calls.length);
      KEPT.forEach((k, i) => {
        const outcome = record.outcomes[i] as { status: string; output: unknown };
        assert.equal(outcome.status, "ok", k.label);
        assert.equal(outcome.output, "x".repeat(k.bytes), k.label);
      });
      const refused = record.outcomes[KEPT.length] as { status: string; error: { kind: string; message: string } };
      assert.equal(refused.status, "error");
      assert.equal(refused.error.kind, "result-too-large");
      assert.match(refused.error.message, new RegExp(`${OVER} bytes, more than the ${CAP}-byte result cap \\(sandbox\\.max_result_bytes\\)`));
      assert.deepEqual((record.outcomes[KEPT.length + 1] as { output: unknown }).output, { after: "all" });
      // A list of runs shows each large output by its size, and stays small.
      const listed = (await runtime.records.list({ limit: 5 })).find((r) => r.id === run.id)!;
      const first = listed.outcomes[0] as { output?: unknown; outputBytes?: number };
      assert.equal(first.output, undefined);
      assert.equal(first.outputBytes, MiB + 2);
    });

    test("the model is given a 2 MiB result and the error of one past the cap, and its run ends with a long answer kept whole", async () => {
      const answer = `done: ${"é".repeat(INLINE_BYTES)}`;
      fake.reply(
        { type: "tool_calls", calls: [{ name: wire("probe.big"), arguments: { bytes: 2 * MiB } }] },
        { type: "tool_calls", calls: [{ name: wire("probe.big"), arguments: { bytes: OVER } }] },
        { type: "text", text: answer },
      );
      const first = fake.requests.length;
      const { run, settled } = await runtime.submitRun({ agent: "big-model", task: "read big things" });
      await settled;
      const record = (await runtime.records.get(run.id))!;
      assert.equal(record.endReason, "completed", String(record.result).slice(0, 300));
      assert.equal(record.result, answer);
      // The model's context budget decides how much of it the model reads; the run kept it whole.
      const given = JSON.stringify(fake.requests[first + 1]!.body);
      assert.ok(given.includes("x".repeat(4096)) && !given.includes("result-too-large"), "the model got the result");
      assert.match(JSON.stringify(fake.requests[first + 2]!.body), /result-too-large/);
      const listed = (await runtime.records.list({ limit: 5 })).find((r) => r.id === run.id)!;
      assert.ok(Buffer.byteLength(listed.result ?? "") < INLINE_BYTES + 200, `a list shows a preview, not ${Buffer.byteLength(listed.result ?? "")} bytes`);
      assert.match(listed.result ?? "", /more bytes: GET \/v1\/runs\/run_\S+ has the whole result\]$/);
    });

    test("the API answers a 4 MiB result whole, replays it for its Idempotency-Key, lists it by size and streams the run's events", async () => {
      const body = { agent: "big", task: "api", tool_calls: [{ name: "probe.big", input: { bytes: CAP } }, { name: "probe.big", input: { bytes: OVER } }] };
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": `big-${driver.server}` };
      const post = () => fetch(`${api.base}/v1/runs?wait=true`, { method: "POST", headers, body: JSON.stringify(body) });
      const response = await post();
      const text = await response.text();
      assert.equal(response.status, 201, text.slice(0, 500));
      const posted = JSON.parse(text) as { run: { id: string; outcomes: Array<{ status: string; output?: unknown; error?: { kind: string } }> } };
      assert.equal(posted.run.outcomes[0]!.output, "x".repeat(CAP));
      assert.equal(posted.run.outcomes[1]!.error?.kind, "result-too-large");
      const replay = await post();
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      assert.equal(await replay.text(), text);
      const id = posted.run.id;
      const one = await jsonCall(api.base, "GET", `/v1/runs/${id}`, { token });
      assert.equal(one.body.run.outcomes[0].output.length, CAP);
      const list = await jsonCall(api.base, "GET", "/v1/runs?limit=10", { token });
      assert.equal(list.status, 200);
      const listed = list.body.runs.find((r: { id: string }) => r.id === id);
      assert.equal(listed.outcomes[0].output_bytes, CAP + 2);
      const events = await (await fetch(`${api.base}/v1/runs/${id}/events`, { headers: { authorization: `Bearer ${token}` } })).text();
      assert.match(events, /event: run-ended/);
    });

    test("an MCP client gets a 4 MiB result, then the error of one past the cap, and its session goes on", async () => {
      const client = new Client({ name: "test-client", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${api.base}/mcp?agent=big`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      try {
        const text = (result: object) => (((result as { content?: unknown }).content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? "").join("");
        const kept = await client.callTool({ name: "probe__big", arguments: { bytes: CAP } });
        assert.equal(kept.isError, undefined);
        assert.equal(text(kept).length, CAP);
        const over = await client.callTool({ name: "probe__big", arguments: { bytes: OVER } });
        assert.equal(over.isError, true);
        assert.match(text(over), /^result-too-large: .*more than the 4194304-byte result cap/);
        const after = await client.callTool({ name: "probe__echo", arguments: { still: "here" } });
        assert.equal(after.isError, undefined);
        assert.deepEqual(after.structuredContent, { still: "here" });
      } finally {
        await client.close();
      }
    });

    test("events with large inputs and errors are stored cut to their bound, with a marker, and every one is read back", async () => {
      const input = { text: "i".repeat(700 * 1024) };
      const { run, settled } = await runtime.submitRun({ agent: "big", task: "large inputs", toolCalls: [{ name: "probe.echo", input }, { name: "probe.echo", input }, { name: "probe.echo", input: { small: true } }] });
      await settled;
      const stored = await runtime.events.list(run.id, { limit: 500 });
      assert.equal(stored.at(-1)?.type, "run-ended", "every event was stored and read");
      const calls = stored.filter((e) => e.type === "tool-call");
      assert.equal(calls.length, 3);
      for (const event of stored) assert.ok(Buffer.byteLength(JSON.stringify(event.data)) <= MAX_EVENT_BYTES, event.type);
      assert.match(JSON.stringify(calls[0]!.data), /\[truncated: \d+ more bytes\]/);
      assert.deepEqual((calls[2]!.data as { input: unknown }).input, { small: true }, "a small event is kept as it was");
      // The record has them whole all the same.
      assert.deepEqual(((await runtime.records.get(run.id))!.outcomes[0] as { output: unknown }).output, input);
    });

    test("audit pages of records with large arguments are read with fewer records each, and none is lost", async () => {
      const input = { text: "a".repeat(20 * 1024) };
      const calls = Array.from({ length: 80 }, () => ({ name: "probe.echo", input }));
      const { run, settled } = await runtime.submitRun({ agent: "big", task: "many large inputs", toolCalls: calls });
      await settled;
      let cursor: string | undefined;
      let records = 0;
      let pages = 0;
      do {
        const page = await runtime.audit.query({ runId: run.id, limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
        records += page.records.length;
        pages++;
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      assert.equal(records, calls.length * 2, "an intent and an outcome per call");
      assert.ok(pages > 1, "a page of 160 records of 16 KiB arguments is more than one statement returns");
    });
  });
}
