import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import type { Runtime } from "../../runtime/index.js";
import { BIN } from "../cli/fixtures.js";
import { echoComponent, packTgz, writePackage } from "../helpers/plugin-packages.js";
import { tempDir, testRuntime } from "../helpers/runtime.js";
import { listen, type Listening } from "./fixtures.js";

/**
 * Two runtime processes on one store file: A in this process, B the real `clawhive serve`.
 * What one node does, the other sees: plugins, agents, approvals, runs and their events.
 */
let a: { runtime: Runtime; server: Listening; dispose: () => Promise<void> };
let dataDir: string;
let work: string;
let admin = "";
let client = "";
let approver = "";

before(async () => {
  const made = await testRuntime({ runLeaseMs: 2000 });
  dataDir = made.dataDir;
  work = join(dataDir, "work");
  await mkdir(work);
  const tokens = await openTokenStore(made.runtime.store, { clock: made.runtime.clock });
  admin = (await tokens.create("admin")).token;
  client = (await tokens.create("client")).token;
  approver = (await tokens.create("approver")).token;
  const runtime = made.runtime;
  const server = await listen(createApp({ runtime, tokens, version: "a", onApprovalDecided: (approval) => void runtime.continueRun(approval.runId).catch(() => undefined) }));
  a = { runtime, server, dispose: made.dispose };
});

after(async () => {
  await a.server.close();
  await a.dispose();
});

/** Starts `clawhive serve` on the shared data dir; resolves with its base URL. */
async function startB(): Promise<{ base: string; child: ChildProcess; stop: () => Promise<void> }> {
  const env: NodeJS.ProcessEnv = { ...process.env, CLAWHIVE_CONFIG: "" };
  for (const name of ["CLAWHIVE_DATA_DIR", "CLAWHIVE_STORE_URL", "CLAWHIVE_AGENTS_DIR", "CLAWHIVE_LISTEN", "CLAWHIVE_PORT", "CLAWHIVE_HOST"]) delete env[name];
  const agents = await tempDir("clawhive-b-agents-");
  const child = spawn(process.execPath, [BIN, "serve", "--data-dir", dataDir, "--port", "0", "--agents", agents], { stdio: ["ignore", "pipe", "pipe"], env });
  const base = await new Promise<string>((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
  return {
    base,
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await new Promise((r) => child.once("exit", r));
      }
      await rm(agents, { recursive: true, force: true });
    },
  };
}

async function api(base: string, method: string, path: string, options: { token?: string; json?: unknown; bytes?: Uint8Array } = {}): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.token ?? client}` };
  let body: BodyInit | undefined;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.bytes) {
    headers["content-type"] = "application/gzip";
    body = new Blob([new Uint8Array(options.bytes)]);
  }
  const response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, body: text.startsWith("{") ? JSON.parse(text) : text };
}

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

const writer = (name: string) => ({
  name,
  description: "writes in its work folder",
  model: { provider: "anthropic", id: "none" },
  system_prompt: "none",
  plugins: [{ name: "files", version: "*" }, { name: "bench-echo", version: "*" }],
  grants: { "fs.read": { mounts: [{ guest: "/w", host: work }] }, "fs.write": { mounts: [{ guest: "/w", host: work, mode: "rw" }] }, log: {} },
});

test("a plugin and an agent put through A run on B; an approval made on B resumes A's run; B streams it", async () => {
  const b = await startB();
  try {
    const echo = await echoComponent();
    const tgz = await readFile(await packTgz(await writePackage(work, "echo-pkg", echo.manifest, echo.bytes), join(work, "echo.tgz")));
    assert.equal((await api(a.server.base, "POST", "/v1/plugins", { token: admin, bytes: tgz })).status, 201);
    assert.equal((await api(a.server.base, "PUT", "/v1/agents/writer", { token: admin, json: writer("writer") })).status, 201);

    const onB = await api(b.base, "POST", "/v1/runs?wait=true", { json: { agent: "writer", tool_calls: [{ name: "bench-echo.echo", input: { from: "b" } }] } });
    assert.equal(onB.status, 201, JSON.stringify(onB.body));
    assert.deepEqual(onB.body.run.outcomes.map((o: any) => [o.status, o.output]), [["ok", { from: "b" }]]);

    const started = await api(a.server.base, "POST", "/v1/runs?wait=true", { json: { agent: "writer", task: "note", tool_calls: [{ name: "files.write_file", input: { path: "/w/a.txt", content: "from a" } }] } });
    assert.equal(started.body.run.status, "awaiting_approval", JSON.stringify(started.body));
    const id = started.body.run.id;
    const pending = await api(b.base, "GET", "/v1/approvals?status=pending", { token: approver });
    const approval = pending.body.approvals.find((p: any) => p.run_id === id || p.runId === id || p.run?.id === id);
    assert.ok(approval, JSON.stringify(pending.body).slice(0, 500));
    assert.equal((await api(b.base, "POST", `/v1/approvals/${approval.id}`, { token: approver, json: { decision: "approve", scope: "once" } })).status, 200);
    const ended = await waitFor(async () => {
      const { body } = await api(b.base, "GET", `/v1/runs/${id}`);
      return body.run.status === "ended" ? body.run : undefined;
    });
    assert.deepEqual(ended.outcomes.map((o: any) => o.status), ["ok"]);
    assert.equal(await readFile(join(work, "a.txt"), "utf8"), "from a");

    const stream = await fetch(`${b.base}/v1/runs/${id}/events`, { headers: { authorization: `Bearer ${client}` } });
    const text = await stream.text();
    assert.match(text, /event: approval-required/);
    assert.match(text, /event: run-ended/);
    assert.match(text, /event: end/);
  } finally {
    await b.stop();
  }
});

test("a run whose node dies while it waits is taken over by the node the approval is made on", async () => {
  const b = await startB();
  let id: string;
  try {
    await api(a.server.base, "PUT", "/v1/agents/writer2", { token: admin, json: writer("writer2") });
    const started = await api(b.base, "POST", "/v1/runs?wait=true", { json: { agent: "writer2", tool_calls: [{ name: "files.write_file", input: { path: "/w/b.txt", content: "from b" } }, { name: "bench-echo.echo", input: { after: 1 } }] } });
    assert.equal(started.body.run.status, "awaiting_approval", JSON.stringify(started.body));
    id = started.body.run.id;
    b.child.kill("SIGKILL");
    await new Promise((r) => b.child.once("exit", r));
  } finally {
    await b.stop();
  }
  const pending = await api(a.server.base, "GET", "/v1/approvals?status=pending", { token: approver });
  const approval = pending.body.approvals.find((p: any) => p.run_id === id || p.runId === id || p.run?.id === id);
  assert.equal((await api(a.server.base, "POST", `/v1/approvals/${approval.id}`, { token: approver, json: { decision: "approve", scope: "once" } })).status, 200);
  const ended = await waitFor(async () => {
    const { body } = await api(a.server.base, "GET", `/v1/runs/${id}`);
    return body.run.status === "ended" ? body.run : undefined;
  });
  assert.deepEqual(ended.outcomes.map((o: any) => [o.tool, o.status]), [["files.write_file", "ok"], ["bench-echo.echo", "ok"]]);
  assert.equal(await readFile(join(work, "b.txt"), "utf8"), "from b");
});
