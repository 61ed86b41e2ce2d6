/**
 * One "runtime node" for the two-process race test: ticks a Scheduler on the store file at
 * minutes 1..N of the shared test clock and prints each run it starts as a JSON line.
 * Both children step through the minutes on a shared wall-clock beat (START + m × 15 ms), so
 * their claims of each due time really race.
 * Usage: node race-child.js URL NODE MINUTES START
 */
import { Scheduler } from "../../runtime/schedules/index.js";
import { ConflictError } from "../../runtime/errors.js";
import { openStore, StoreError } from "../../runtime/store/index.js";
import { agent, MINUTE, T0, TestClock, WIDE } from "./_fixtures.js";

const [url = "", node = "child", minutes = "0", start = "0"] = process.argv.slice(2);
const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())));
const store = await openStore({ url });
await store.execute("CREATE TABLE IF NOT EXISTS race_runs (run_id TEXT PRIMARY KEY)");
const clock = new TestClock();
const scheduler = await Scheduler.open({
  store,
  clock,
  node,
  agents: () => [agent("reporter", WIDE)],
  submit: async (input) => {
    // As the runtime's runs table does: a run id is started once, whichever node tries.
    try {
      await store.execute({ sql: "INSERT INTO race_runs (run_id) VALUES (?)", args: [input.runId] });
    } catch (error) {
      if (error instanceof StoreError && error.code === "store_constraint") throw new ConflictError("run_exists", `run ${input.runId}: already started`);
      throw error;
    }
    process.stdout.write(`${JSON.stringify({ node, task: input.task, at: clock.t, runId: input.runId })}\n`);
    return { runId: input.runId };
  },
});
for (let m = 1; m <= Number(minutes); m++) {
  await sleepUntil(Number(start) + m * 15);
  clock.t = T0 + m * MINUTE;
  await scheduler.tick();
}
await store.close();
