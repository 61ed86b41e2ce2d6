/**
 * SIGTERM stops `clawhive serve` even while it is busy: a tool call parsing a hostile calendar
 * (a guest waiting on a parse worker) and a client holding a run's event stream open. Control:
 * an idle server stops on SIGTERM too, with exit code 0. The bound is a liveness bound
 * (generous), not a measurement.
 */
import assert from "node:assert/strict";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
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
  if (hostile) await copyFile(join(PROJECT_ROOT, "test", "fixtures", "hostile", "ics", "own-duration-absurd-recurring.ics"), join(p.data, "calendars", "primary.ics"));
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
