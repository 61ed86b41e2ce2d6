/**
 * What a node taking a run over counts as an effect its previous node had begun inside the
 * ToolCall it stopped in (since the journal's `since`): each host call's intent, and each
 * sub-agent run it started — the child's own effects are recorded under the child, so without
 * the parent's spawn intent the ToolCall would run again and the child's task be done twice.
 * Beside each, a control that is no effect (the ToolCall's own intent, an effect from before
 * the ToolCall started): the ToolCall simply runs again.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openAuditLog, type IntentInput, type LibsqlAuditLog } from "../../runtime/audit/index.js";
import { interruptedEffects } from "../../runtime/runs/takeover.js";
import { openStore, type Store } from "../../runtime/store/index.js";

const RUN = "run_parent";
const subject = { traceId: "trace-1", taskId: "task-1", runId: RUN, stepId: "step_1", agent: "lead", grantedCapabilities: [] };
const spawn: IntentInput = { ...subject, kind: "tool_call", tool: "subagent_helper", toolCall: { id: "spawn_1", name: "subagent_helper" }, args: { agent: "helper", task: "find the notes" }, requestedCapabilities: ["agent.spawn"] };
const write: IntentInput = { ...subject, kind: "host_call", plugin: "files", tool: "files.write_file", toolCall: { id: "call_1", name: "files.write_file" }, hostCall: { proxy: "fs", function: "write" }, args: { path: "/w/a.txt" }, requestedCapabilities: ["fs.write"] };
const ownIntent: IntentInput = { ...subject, kind: "tool_call", plugin: "files", tool: "files.write_file", toolCall: { id: "call_1", name: "files.write_file" }, args: { path: "/w/a.txt", content: "a" } };

const CASES: Array<{ what: string; records: Array<{ intent: IntentInput; at: "before" | "inside"; outcome?: boolean }>; reason?: RegExp }> = [
  { what: "a sub-agent run it started (no outcome yet)", records: [{ intent: spawn, at: "inside" }], reason: /1 effect\(s\): subagent_helper .*find the notes.*no outcome recorded/ },
  { what: "a sub-agent run it started that ended", records: [{ intent: spawn, at: "inside", outcome: true }], reason: /1 effect\(s\): subagent_helper .*\(finished\)/ },
  { what: "a host call's write", records: [{ intent: write, at: "inside" }], reason: /1 effect\(s\): fs\.write .*a\.txt/ },
  { what: "control: only the ToolCall's own intent (no effect)", records: [{ intent: ownIntent, at: "inside", outcome: true }] },
  { what: "control: a sub-agent run started before this ToolCall", records: [{ intent: spawn, at: "before", outcome: true }] },
];

describe("effects a taken-over ToolCall had begun", () => {
  let store: Store;
  let audit: LibsqlAuditLog;
  let now = 1_000;
  before(async () => {
    store = await openStore({ url: ":memory:" });
    audit = await openAuditLog(store, { clock: { now: () => now } });
  });
  after(async () => {
    await audit.close();
    await store.close();
  });

  for (const c of CASES) {
    it(`${c.what}: ${c.reason ? "a person is asked before it runs again" : "it runs again"}`, async () => {
      const runId = `${RUN}_${CASES.indexOf(c)}`;
      const since = (now += 1_000);
      for (const record of c.records) {
        now = record.at === "before" ? since - 500 : since + 10;
        const intent = await audit.appendIntent({ ...record.intent, runId });
        if (record.outcome) await audit.appendOutcome(intent, { status: "ok" });
      }
      now = since + 100;
      const reason = await interruptedEffects(audit, runId, { since, node: "node_gone_1_00000000" });
      if (c.reason === undefined) return assert.equal(reason, undefined);
      assert.match(reason ?? "", c.reason);
      // Every effect the stopped node left open now has an outcome: none is shown in flight.
      const records = (await audit.query({ runId, limit: 100 })).records;
      const closed = new Set(records.map((r) => r.intentSeq));
      assert.deepEqual(records.filter((r) => r.status === "intent" && !closed.has(r.seq)).map((r) => r.seq), []);
    });
  }
});
