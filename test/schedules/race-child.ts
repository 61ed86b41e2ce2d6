/**
 * One "runtime node" for the two-process race test: ticks a Scheduler on the store file at
 * minutes 1..N of the shared test clock and prints each run it starts as a JSON line.
 * Both children step through the minutes on a shared wall-clock beat (START + m × 15 ms), so
 * their claims of each due time really race.
 * Usage: node race-child.js URL NODE MINUTES START
 */
import { Scheduler } from "../../runtime/schedules/index.js";
import { openStore } from "../../runtime/store/index.js";
import { agent, MINUTE, T0, TestClock, WIDE } from "./_fixtures.js";

const [url = "", node = "child", minutes = "0", start = "0"] = process.argv.slice(2);
const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())));
const store = await openStore({ url });
const clock = new TestClock();
let started = 0;
const scheduler = await Scheduler.open({
  store,
  clock,
  node,
  agents: () => [agent("reporter", WIDE)],
  submit: async (input) => {
    started++;
    process.stdout.write(`${JSON.stringify({ node, task: input.task, at: clock.t })}\n`);
    return { runId: `run_${node}_${started}` };
  },
});
for (let m = 1; m <= Number(minutes); m++) {
  await sleepUntil(Number(start) + m * 15);
  clock.t = T0 + m * MINUTE;
  await scheduler.tick();
}
await store.close();
