/**
 * What live runs cost in resident memory, and whether it comes back when they end: one process
 * (the workers are its threads), policy and audit on, a file store.
 * - rss_per_live_run_mb: (RSS with RUNS runs live, each having made one ToolCall − RSS before
 *   them) ÷ RUNS;
 * - rss_returned_ratio: RSS once those runs have ended and the workers idled ÷ RSS before they
 *   started (goal ≤ 1.2). "Before" is after one run of the same agent came and went, so the
 *   plugin's load and the workers' start are on both sides.
 * `rss_before_runs_mb`, `rss_live_runs_mb`, `rss_after_runs_mb` are the three readings.
 */
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Runtime } from "../runtime/index.js";
import { sleep, value, type Metrics } from "./metrics.js";

const RUNS = 100;

const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) / 1024;

/** RSS once the main isolate collected and the workers had time to idle and collect theirs. */
async function settledRss(): Promise<number> {
  let mb = Infinity;
  for (let i = 0; i < 6; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    await sleep(500);
    mb = Math.min(mb, rssMb());
  }
  return mb;
}

export async function benchRssRuns(options: { quick?: boolean } = {}): Promise<Metrics> {
  const runs = options.quick ? 30 : RUNS;
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-bench-rss-"));
  const work = join(dataDir, "work");
  await mkdir(join(dataDir, "agents"));
  await mkdir(work);
  await writeFile(join(work, "note.md"), "a short note\n");
  const runtime = await Runtime.create({ dataDir, agentsDir: join(dataDir, "agents") });
  try {
    await runtime.defineAgent({
      name: "reader",
      description: "bench agent",
      model: { provider: "anthropic", id: "none" },
      system_prompt: "bench",
      plugins: [{ name: "files", version: "*" }],
      grants: { "fs.read": { mounts: [{ guest: "/w", host: work }] } },
    });
    const oneRun = async () => {
      const run = await runtime.startRun({ agent: "reader" });
      await run.callTool("files.read_file", { path: "/w/note.md" });
      return run;
    };
    await (await oneRun()).end();
    const before = await settledRss();
    const live = [];
    for (let i = 0; i < runs; i++) live.push(await oneRun());
    const held = rssMb();
    for (const run of live) await run.end();
    live.length = 0;
    const after = await settledRss();
    return {
      rss_before_runs_mb: value(before, "MB"),
      rss_live_runs_mb: value(held, "MB"),
      rss_after_runs_mb: value(after, "MB"),
      rss_per_live_run_mb: value((held - before) / runs, "MB"),
      rss_returned_ratio: value(after / before, "ratio"),
    };
  } finally {
    await runtime.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
