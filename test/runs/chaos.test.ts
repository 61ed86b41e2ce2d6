/**
 * Chaos (slow; loopback only, bounded in kills and time): three runtime nodes on one store under
 * mixed load — model-driven runs, runs of explicit ToolCalls, one-off schedules every two
 * seconds — while a random node is killed with SIGKILL and restarted, CHAOS_KILLS times (default
 * 20). Afterwards: every effect's intent has an outcome, no effect happened twice, every run
 * ended or waits for a person, audit verify is clean, each schedule's tick started one run.
 * Against a libSQL server (sqld) and against a shared file.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openAuditLog } from "../../runtime/audit/index.js";
import { firingRunId, Scheduler } from "../../runtime/schedules/index.js";
import { allRows, openStore, type Store } from "../../runtime/store/index.js";
import { startNode, type ClusterNode } from "../helpers/cluster.js";
import { tempDir } from "../helpers/runtime.js";
import { needsSqld, startSqld, type SqldServer } from "../helpers/sqld.js";
import { agent } from "../schedules/_fixtures.js";

const KILLS = Number(process.env.CHAOS_KILLS ?? 20);
const SCHEDULES = 6;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: SqldServer | undefined;
after(async () => server?.stop());

const targets: Array<{ label: string; skip?: string; open: (dataDir: string) => Promise<{ url: string; authToken?: string }> }> = [
  {
    label: "sqld",
    ...needsSqld(),
    open: async () => {
      server ??= await startSqld({ auth: true });
      return { url: server.url, authToken: server.authToken! };
    },
  },
  { label: "a shared file", open: async (dataDir) => ({ url: `file:${join(dataDir, "shared.db")}` }) },
];

for (const target of targets) {
  describe(`chaos on ${target.label}`, target.skip === undefined ? {} : { skip: target.skip }, () => {
    it(`${KILLS} kill -9s of random nodes lose no effect and repeat none`, { timeout: 15 * 60_000 }, async () => {
      const dataDir = await tempDir("clawhive-chaos-");
      const { url, authToken } = await target.open(dataDir);
      const auth = authToken === undefined ? {} : { authToken };
      const nodes: ClusterNode[] = [];
      const acked = new Set<string>();
      const start = (name: string, count: number) => {
        // A killed node's runs are taken over at once (its process is gone); the lease only
        // bounds a node that is alive but cut off, and must outlast a busy store's stalls.
        const node = startNode({ url, dataDir, name, mode: "load", count, leaseMs: 15_000, ...auth });
        nodes.push(node);
        return node;
      };
      let live = ["n1", "n2", "n3"].map((name) => start(name, 8));
      let store: Store | undefined;
      try {
        await Promise.all(live.map((n) => n.waitFor((l) => l.ready !== undefined, 120_000)));
        store = await openStore({ url, ...auth });
        const scheduleIds = await createSchedules(store, join(dataDir, "work"));
        for (let k = 0; k < KILLS; k++) {
          await sleep(1000 + Math.random() * 1500);
          const victim = live[Math.floor(Math.random() * live.length)]!;
          await victim.kill();
          live = [...live.filter((n) => n !== victim), start(victim.name, 3)];
        }
        // Every surviving node has submitted all its runs before the store is watched settle: a
        // run submitted after that would be left active by the close below (by design, for the
        // next node to take over) with no node left to take it.
        await Promise.all(live.map((n) => n.waitFor((l) => l.submitted !== undefined, 120_000)));
        for (const node of nodes) for (const line of node.lines) if (line.ack !== undefined) acked.add(line.ack);
        await settle(store);
        await Promise.all(live.map((n) => n.close()));
        await checkInvariants(store, acked, scheduleIds);
      } finally {
        await Promise.all(nodes.map((n) => n.kill()));
        await store?.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  });
}

/** One-off schedules two seconds apart, each writing its own file. */
async function createSchedules(store: Store, work: string): Promise<string[]> {
  const grants = { log: {}, "fs.read": { mounts: [{ guest: "/w", host: work }] }, "fs.write": { mounts: [{ guest: "/w", host: work, mode: "rw" }] } };
  const scheduler = await Scheduler.open({ store, clock: { now: () => Date.now() }, node: "chaos-parent", agents: () => [agent("writer", grants)], submit: async () => assert.fail("the parent never fires") });
  const ids: string[] = [];
  for (let i = 0; i < SCHEDULES; i++) {
    const input = { path: `/w/s-${i}`, content: `s-${i}` };
    ids.push((await scheduler.create({ agent: "writer", task: `schedule ${i}`, toolCalls: [{ name: "files.write_file", input }], at: Date.now() + 2000 * (i + 1) })).id);
  }
  return ids;
}

/** Waits (bounded) until no run is active: the surviving nodes take the orphans over. */
async function settle(store: Store): Promise<void> {
  for (let i = 0; i < 240; i++) {
    const active = Number((await store.execute("SELECT count(*) AS n FROM runs WHERE status = 'active'")).rows[0]?.n);
    const claimed = Number((await store.execute("SELECT count(*) AS n FROM schedule_firings WHERE status = 'claimed'")).rows[0]?.n);
    const pending = Number((await store.execute("SELECT count(*) AS n FROM schedules WHERE status = 'active'")).rows[0]?.n);
    if (active === 0 && claimed === 0 && pending === 0) return;
    await sleep(500);
  }
  const left = await store.execute("SELECT id, node, lease_until FROM runs WHERE status = 'active' LIMIT 5");
  assert.fail(`runs still active after the nodes settled: ${JSON.stringify(left.rows)}`);
}

/** A run as a failure message tells it: its record, its journal, its audit records, its events. */
async function story(store: Store, runId: string): Promise<string> {
  const rows = async (sql: string) => (await store.execute({ sql, args: [runId] })).rows.map((r) => JSON.stringify(r));
  return [
    ...(await rows("SELECT status, end_reason, node, plan_next, result FROM runs WHERE id = ?")),
    ...(await rows("SELECT seq, kind, status, decision, intent_seq, start_at, tool, host_function, denial_reason FROM audit_records WHERE run_id = ? ORDER BY seq")),
    ...(await rows("SELECT seq, type, at, substr(data, 1, 160) AS data FROM run_events WHERE run_id = ? ORDER BY seq")),
  ].join("\n");
}

async function checkInvariants(store: Store, acked: ReadonlySet<string>, scheduleIds: readonly string[]): Promise<void> {
  const audit = await openAuditLog(store);
  const runs = await allRows(store, { page: (after, limit) => ({ sql: "SELECT id, status, pending FROM runs WHERE id > ? ORDER BY id LIMIT ?", args: [after ?? "", limit] }), key: (r) => r.id as string });
  const byId = new Map(runs.map((r) => [String(r.id), r]));
  for (const id of acked) assert.ok(byId.has(id), `acknowledged run ${id} is in the store`);
  for (const run of runs) assert.ok(run.status === "ended" || run.status === "awaiting_approval", `run ${String(run.id)} ended or waits for a person (is ${String(run.status)})`);
  const records = await allRows(store, { page: (after, limit) => ({ sql: "SELECT seq, kind, status, decision, intent_seq, args, run_id FROM audit_records WHERE seq > ? AND kind = 'host_call' ORDER BY seq LIMIT ?", args: [after ?? 0, limit] }), key: (r) => r.seq as number });
  const outcomes = new Set(records.filter((r) => r.intent_seq !== null).map((r) => Number(r.intent_seq)));
  const writes = new Map<string, number>();
  for (const r of records) {
    if (r.status !== "intent" || r.decision !== "allow") continue;
    if (!outcomes.has(Number(r.seq))) assert.fail(`intent ${String(r.seq)} of run ${String(r.run_id)} has no outcome\n${await story(store, String(r.run_id))}`);
    const path = (JSON.parse(String(r.args)) as { path?: string }).path ?? "";
    if (path !== "") writes.set(path, (writes.get(path) ?? 0) + 1);
  }
  const twice = [...writes].filter(([, n]) => n > 1);
  assert.deepEqual(twice, [], "no effect happened twice");
  assert.ok(writes.size >= acked.size / 2, `effects were made (${writes.size} for ${acked.size} acknowledged runs)`);
  const report = await audit.verify();
  assert.equal(report.ok, true, JSON.stringify(report.issues?.slice(0, 3)));
  for (const id of scheduleIds) {
    const firings = (await store.execute({ sql: "SELECT due_at, status, run_id, error FROM schedule_firings WHERE schedule_id = ?", args: [id] })).rows;
    assert.equal(firings.length, 1, `schedule ${id}: one firing`);
    assert.equal(firings[0]?.status, "started", `schedule ${id}: its firing started a run (${String(firings[0]?.error)})`);
    assert.equal(firings[0]?.run_id, firingRunId(id, Number(firings[0]?.due_at)));
    assert.ok(byId.has(String(firings[0]?.run_id)), `schedule ${id}: its run exists`);
  }
}
