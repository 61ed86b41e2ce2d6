import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { firingRunId, Scheduler } from "../../runtime/schedules/index.js";
import { openStore } from "../../runtime/store/index.js";
import { tempDir } from "../store/temp-store.js";
import { agent, T0, TestClock, WIDE } from "./_fixtures.js";

const CHILD = new URL("./race-child.js", import.meta.url);
const MINUTES = 40;
const SCHEDULES = 4;

function runChild(url: string, node: string, start: number): Promise<Array<{ node: string; task: string; at: number; runId: string }>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD.pathname, url, node, String(MINUTES), String(start)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`${node} exited ${code}: ${err}`));
      else resolve(out.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { node: string; task: string; at: number; runId: string }));
    });
  });
}

test("two runtime processes on one store file: every due time fires exactly once", async () => {
  const dir = await tempDir("clawhive-schedules-");
  try {
    const url = dir.url();
    const store = await openStore({ url });
    const scheduler = await Scheduler.open({
      store,
      clock: new TestClock(T0),
      node: "creator",
      agents: () => [agent("reporter", WIDE)],
      submit: async () => assert.fail("the creator never ticks"),
    });
    const ids: string[] = [];
    for (let i = 0; i < SCHEDULES; i++) ids.push((await scheduler.create({ agent: "reporter", task: `every minute ${i}`, cron: "* * * * *" })).id);
    const start = Date.now() + 5000; // both children are up by then, even on a loaded machine
    const [a, b] = await Promise.all([runChild(url, "node-a", start), runChild(url, "node-b", start)]);
    const all = [...a, ...b];
    assert.equal(all.length, SCHEDULES * MINUTES, `node-a started ${a.length}, node-b ${b.length}`);
    // A claim a slow node holds past the claim timeout is retaken at a later minute: the run id
    // (a function of the schedule and due time) is what identifies the firing.
    const keys = new Set(all.map((r) => r.runId));
    assert.equal(keys.size, all.length, "no (schedule, due time) started twice");
    assert.ok(a.length > 0 && b.length > 0, `both nodes won some due times (a ${a.length}, b ${b.length}): the claims really raced`);
    let firings = 0;
    for (const id of ids) {
      const rows = await scheduler.firings(id, { limit: 1000 });
      firings += rows.length;
      assert.ok(rows.every((f) => f.status === "started"), "every claimed firing got its run");
      assert.ok(rows.every((f) => keys.has(firingRunId(id, f.dueAt)) && f.runId === firingRunId(id, f.dueAt)), "each firing's run is the one its id names");
    }
    assert.equal(firings, SCHEDULES * MINUTES);
    await store.close();
  } finally {
    await dir.remove();
  }
});
