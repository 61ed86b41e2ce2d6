/**
 * Memory across many runs (group `soak`): the served process of the `http` group, one-call runs
 * at c = 8 until 10,000 have ended (or the time cap, `soak_runs` says how many did).
 * - rss_first_run: the server's RSS 2 s after its first run ended;
 * - rss_after_soak: the same after the last run of the soak ended;
 * - rss_growth_ratio: the two divided (goal ≤ 1.2).
 */
import { sleep, value, type Metrics } from "./metrics.js";
import { oneCallRun, putAgent } from "./http-runs.js";
import { load, startServer } from "./server.js";

export async function benchSoak(options: { quick?: boolean } = {}): Promise<Metrics> {
  const target = options.quick ? 1000 : 10_000;
  const capMs = options.quick ? 60_000 : 600_000;
  const server = await startServer();
  try {
    await putAgent(server, "bench");
    const run = oneCallRun(server, "bench");
    await run();
    await sleep(2000);
    const first = await server.rssMb();
    let runs = 0;
    const started = performance.now();
    // In slices, so the cap is checked between them and the count is exact.
    while (runs < target && performance.now() - started < capMs) {
      const slice = await load(1000, 8, run);
      runs += slice.latencies.length;
    }
    await sleep(2000);
    const after = await server.rssMb();
    return {
      soak_runs: value(runs, "count"),
      rss_first_run: value(first, "MB"),
      rss_after_soak: value(after, "MB"),
      rss_growth_ratio: value(after / first, "ratio"),
    };
  } finally {
    await server.close();
  }
}
