/**
 * SIGTERM stops `clawhive serve` even while it is busy: a tool call parsing a hostile calendar
 * (a guest waiting on a parse worker) and a client holding a run's event stream open. Control:
 * an idle server stops on SIGTERM too, with exit code 0. The bound is a liveness bound
 * (generous), not a measurement.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { serve, type Served } from "./client-fixtures.js";
import { cliPlace } from "./fixtures.js";

const EXIT_BOUND_MS = 45_000;

const PA = `name: pa
description: Reads a calendar.
model: { provider: anthropic, id: none }
system_prompt: Not used; tools are called directly.
plugins:
  - { name: calendar, version: "*" }
grants:
  calendar.read: { calendars: [primary] }
`;

/** Resolves with how the process ended, or rejects when it outlives the bound (then it is killed). */
function exitOf(served: Served): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const { child } = served;
    if (child.exitCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`serve did not exit within ${EXIT_BOUND_MS} ms of SIGTERM`));
    }, EXIT_BOUND_MS);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

async function place(hostile: boolean) {
  const p = await cliPlace("clawhive-serve-stop-");
  await writeFile(join(p.agents, "pa.yaml"), PA);
  await mkdir(join(p.data, "calendars"), { recursive: true });
  if (hostile) await copyFile(join(PROJECT_ROOT, "test", "fixtures", "hostile", "ics", "own-rrule-year-one-daily.ics"), join(p.data, "calendars", "primary.ics"));
  return p;
}

/** Reads a run's event stream until `tool-call` shows, and leaves the stream open. */
async function waitForToolCall(served: Served, runId: string): Promise<void> {
  const response = await fetch(`${served.url}/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${served.token}` } });
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  let seen = "";
  while (!seen.includes("event: tool-call")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before the tool call: ${seen}`);
    seen += Buffer.from(value).toString();
  }
  // Keep reading in the background so the stream stays open until the server goes.
  void (async () => {
    for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
  })();
}

test("SIGTERM stops a server busy parsing a hostile calendar, with a client's event stream open", { timeout: 180_000 }, async (t) => {
  const t0 = Date.now();
  const served = await serve(await place(true));
  t.diagnostic(`listening after ${Date.now() - t0} ms`);
  const started = await fetch(`${served.url}/v1/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${served.token}`, "content-type": "application/json" },
    body: JSON.stringify({ agent: "pa", tool_calls: [{ name: "calendar.list_events", input: { calendar_id: "primary", from: "2026-01-01", to: "2026-12-31" } }] }),
  });
  const body = (await started.json()) as { run: { id: string } };
  assert.equal(started.status, 202, JSON.stringify(body));
  await waitForToolCall(served, body.run.id);
  t.diagnostic(`tool call started after ${Date.now() - t0} ms`);
  served.child.kill("SIGTERM");
  const ended = await exitOf(served);
  t.diagnostic(`exited after ${Date.now() - t0} ms`);
  assert.equal(ended.signal, null, "it exited by itself, not by a signal's default action");
  assert.ok(ended.code === 0 || ended.code === 1, `exit code ${ended.code}`);
});

test("control: SIGTERM stops an idle server with exit code 0", { timeout: 180_000 }, async () => {
  const served = await serve(await place(false));
  served.child.kill("SIGTERM");
  assert.deepEqual(await exitOf(served), { code: 0, signal: null });
});

/**
 * The stop itself, in a process of its own: a stop that never finishes (a guest spinning in a
 * call that runtime.close() waits for) still ends the process after the grace period, and a
 * second signal ends it at once. Control: a stop that finishes exits with code 0.
 */
const SERVE_MODULE = pathToFileURL(join(PROJECT_ROOT, "dist", "runtime", "cli", "serve.js")).href;
const STOP_ROWS: Array<{ why: string; stop: string; signals: number; code: number; says: RegExp }> = [
  { why: "a stop that never finishes exits after the grace period", stop: "() => new Promise(() => {})", signals: 1, code: 1, says: /stopping took longer than 0\.5 s/ },
  { why: "a second signal exits at once", stop: "() => new Promise(() => {})", signals: 2, code: 1, says: /SIGTERM again: exiting now/ },
  { why: "control: a stop that finishes exits with code 0", stop: "async () => {}", signals: 1, code: 0, says: /SIGTERM: stopping/ },
];

for (const row of STOP_ROWS) {
  test(`stopOnSignals: ${row.why}`, { timeout: 120_000 }, async () => {
    const script = `import { stopOnSignals } from ${JSON.stringify(SERVE_MODULE)};
setInterval(() => {}, 1000); // a busy process: something always holds the event loop
const stopped = stopOnSignals(${row.stop}, ${row.signals === 2 ? 60_000 : 500});
console.log("ready");
await stopped;
process.exit(0);`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    // The handlers are set once the module graph has loaded: the child says so.
    await new Promise<void>((resolve) => child.stdout.on("data", (d: Buffer) => d.toString().includes("ready") && resolve()));
    const served = { child } as unknown as Served;
    const ended = exitOf(served);
    child.kill("SIGTERM");
    if (row.signals === 2) {
      await new Promise((r) => setTimeout(r, 300));
      child.kill("SIGTERM");
    }
    assert.deepEqual(await ended, { code: row.code, signal: null }, stderr);
    assert.match(stderr, row.says);
  });
}
