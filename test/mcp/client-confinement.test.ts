/**
 * Confinement of stdio MCP servers, adversarially, each refusal beside a control that passes:
 * the published filesystem server told it may read and write all of `/` still sees only its
 * own mounts and read-only package; the test probe server and the published everything server
 * cannot reach the network (not the host's loopback, not an address, not a name) yet can use
 * their own loopback; the runtime's environment never reaches a server; no server process
 * outlives its run.
 */
import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir, testRuntime } from "../helpers/runtime.js";
import { acceptServer, defineMcpAgent, EVERYTHING_SERVER, FS_SERVER, NO_SANDBOX, NODE_MODULES, probeSpec } from "./client-fixtures.js";

const safe = (server: string, tools: string[]) => ({ approvals: { lower_risk: tools.map((t) => ({ tool: `${server}.${t}`, to: "safe", acknowledged: true })) } });

test("filesystem server allowed '/' sees only its mounts and its package", { skip: NO_SANDBOX, timeout: 180_000 }, async () => {
  const { runtime, dataDir, dispose } = await testRuntime();
  try {
    const ws = await tempDir();
    const ro = await tempDir();
    const outside = await tempDir();
    await writeFile(join(ws, "a.txt"), "inside the mount\n");
    await writeFile(join(ws, ".env"), "API_KEY=do-not-read\n");
    await writeFile(join(ro, "r.txt"), "read-only mount\n");
    await writeFile(join(outside, "secret.txt"), "outside every mount\n");
    const agent = await defineMcpAgent(
      runtime,
      "confined",
      { files: { command: "node", args: [FS_SERVER, "/"], read_only: [NODE_MODULES], mounts: [{ guest: "/data", host: ws, mode: "rw" }, { guest: "/ro", host: ro, mode: "ro" }] } },
      safe("files", ["read_text_file", "write_file"]),
    );
    await acceptServer(runtime, agent, "files");
    const run = await runtime.startRun({ agent: "confined" });
    const read = async (path: string) => run.callTool("files.read_text_file", { path });
    const cases: Array<{ what: string; call: () => ReturnType<typeof read>; allowed: boolean; leak?: string }> = [
      { what: "control: a file in its mount", call: () => read("/data/a.txt"), allowed: true },
      { what: "control: its package, read-only", call: () => read(join(NODE_MODULES, "@modelcontextprotocol", "server-filesystem", "package.json")), allowed: true },
      { what: "control: a read-only mount", call: () => read("/ro/r.txt"), allowed: true },
      { what: "control: a write in its rw mount", call: () => run.callTool("files.write_file", { path: "/data/new.txt", content: "ok\n" }), allowed: true },
      { what: "a host file outside every mount", call: () => read(join(outside, "secret.txt")), allowed: false, leak: "outside every mount" },
      { what: "the host's /etc/shadow", call: () => read("/etc/shadow"), allowed: false },
      { what: "the host's /etc/hostname", call: () => read("/etc/hostname"), allowed: false },
      { what: "the runtime's data dir", call: () => read(join(dataDir, "clawhive.db")), allowed: false },
      { what: "a write into its read-only package", call: () => run.callTool("files.write_file", { path: join(NODE_MODULES, "planted.js"), content: "x" }), allowed: false },
      { what: "a write into a read-only mount", call: () => run.callTool("files.write_file", { path: "/ro/planted.txt", content: "x" }), allowed: false },
    ];
    for (const c of cases) {
      const outcome = await c.call();
      assert.equal(outcome.status === "ok", c.allowed, `${c.what}: ${JSON.stringify(outcome)}`);
      if (c.leak) assert.doesNotMatch(JSON.stringify(outcome), new RegExp(c.leak), c.what);
    }
    // A sensitive name inside the mount is covered, as shell.exec covers it.
    const env = await read("/data/.env");
    assert.doesNotMatch(JSON.stringify(env), /do-not-read/);
    assert.equal(await readFile(join(ws, "new.txt"), "utf8"), "ok\n");
    assert.deepEqual((await readdir(ro)).sort(), ["r.txt"]);
    await assert.rejects(readFile(join(NODE_MODULES, "planted.js")));
    await run.end();
  } finally {
    await dispose();
  }
});

test("no network: not the host's loopback, an address or a name; its own loopback works", { skip: NO_SANDBOX, timeout: 180_000 }, async () => {
  let hits = 0;
  const host = createServer((_req, res) => (hits++, res.end("reached the host")));
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
  const port = (host.address() as AddressInfo).port;
  const { runtime, dispose } = await testRuntime();
  try {
    const agent = await defineMcpAgent(
      runtime,
      "offline",
      { probe: probeSpec(), every: { command: "node", args: [EVERYTHING_SERVER, "stdio"], read_only: [NODE_MODULES] } },
      { approvals: { lower_risk: [...["connect", "connect_own_loopback"].map((t) => `probe.${t}`), "every.gzip_file_as_resource"].map((tool) => ({ tool, to: "safe", acknowledged: true })) } },
    );
    await acceptServer(runtime, agent, "probe");
    await acceptServer(runtime, agent, "every");
    const run = await runtime.startRun({ agent: "offline" });
    const connect = async (h: string, p: number) => {
      const outcome = await run.callTool("probe.connect", { host: h, port: p });
      return outcome.status === "ok" ? String(outcome.output) : `tool error: ${JSON.stringify(outcome)}`;
    };
    const own = await run.callTool("probe.connect_own_loopback", {});
    assert.equal(own.status === "ok" && own.output, "connected", "control: the server's own loopback works");
    for (const [h, p] of [["127.0.0.1", port], ["10.0.0.1", 80], ["1.1.1.1", 53], ["localhost", port], ["example.com", 443]] as const) {
      const result = await connect(h, p);
      assert.notEqual(result, "connected", `${h}:${p} was reached`);
      assert.match(result, /^E[A-Z]+/, `${h}:${p}: ${result}`);
    }
    // The published server's own fetch: a data: URI works (control), the host's server is not reached.
    const control = await run.callTool("every.gzip_file_as_resource", { name: "a.gz", data: "data:text/plain;base64,aGVsbG8=", outputType: "resource" });
    assert.equal(control.status, "ok", JSON.stringify(control));
    const fetched = await run.callTool("every.gzip_file_as_resource", { name: "b.gz", data: `http://127.0.0.1:${port}/`, outputType: "resource" });
    assert.equal(fetched.status, "error", JSON.stringify(fetched));
    assert.equal(hits, 0, "nothing reached the host's server");
    await run.end();
  } finally {
    await dispose();
    host.close();
  }
});

test("environment: only its plain values and named secrets (redacted from what it returns); no server process outlives its run", { skip: NO_SANDBOX, timeout: 120_000 }, async () => {
  process.env.CLAWHIVE_TEST_LEAK = "runtime-environment-value";
  const { runtime, dispose } = await testRuntime();
  try {
    await runtime.secrets.set("probe-token", "granted-secret");
    const marker = `marker-${process.pid}-${Date.now()}`;
    const spec = probeSpec({ env: { PROBE_TOKEN: { secret: "probe-token" }, PROBE_MODE: "verbose-plain" } });
    (spec.args as string[]).push("", marker);
    const withMarker = await defineMcpAgent(runtime, "envs", { probe: spec }, safe("probe", ["env"]));
    await acceptServer(runtime, withMarker, "probe");
    const run = await runtime.startRun({ agent: "envs" });
    const env = async (name: string) => {
      const outcome = await run.callTool("probe.env", { name });
      return outcome.status === "ok" ? outcome.output : outcome;
    };
    // The server got the secret (else "(unset)"); what it sends back is shown without it.
    assert.equal(await env("PROBE_TOKEN"), "[REDACTED]", "a named secret reaches the server, never the model");
    assert.equal(await env("PROBE_MODE"), "verbose-plain", "control: a plain value is shown as it is");
    for (const name of ["CLAWHIVE_TEST_LEAK", "CLAWHIVE_SECRET_KEY", "NODE_OPTIONS", "USER"]) assert.equal(await env(name), "(unset)", name);
    assert.equal((await serverProcesses(marker)).length, 1, "control: the run's server is running");
    await run.end();
    // The server's sandbox (bwrap, its own PID namespace) has exited; the kernel then kills what
    // ran inside it, a moment later: gone within seconds, never left running.
    let left = await serverProcesses(marker);
    for (let waited = 0; left.length > 0 && waited < 5_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      left = await serverProcesses(marker);
    }
    assert.deepEqual(left, [], "the server ended with its run");
  } finally {
    delete process.env.CLAWHIVE_TEST_LEAK;
    await dispose();
  }
});

/** Pids of processes whose command line carries `marker`. */
async function serverProcesses(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(marker) && !cmdline.includes("bwrap")) found.push(Number(entry));
  }
  return found;
}
