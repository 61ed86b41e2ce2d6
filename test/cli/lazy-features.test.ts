/**
 * Each optional feature the shipped command (bin/clawhive.js, the bundle) loads only when it is
 * turned on, turned on through the command: OTLP tracing and MCP over HTTP in `serve`, pretty
 * logs, the Markdown renderer at a colour terminal, the model proxy (undici), a libSQL server
 * store (@libsql/client). The tests import the unbundled modules; these run what people run, so
 * a lazy load that breaks in the bundle fails here (house/cli-lazy-chunks.test.ts checks every
 * lazily loaded chunk's exports besides).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startFakeOpenAi, startFakeProxy, type FakeOpenAi } from "../helpers/fake-llm/index.js";
import { SPAN_KIND } from "../helpers/otlp-collector.js";
import { needsSqld, startSqld } from "../helpers/sqld.js";
import { received, tracedPlace, type TracedPlace } from "../telemetry/cli-fixtures.js";
import { BIN, clawhiveAsync } from "./fixtures.js";

let place: TracedPlace;
let fake: FakeOpenAi;
let adminToken: string | undefined;

before(async () => {
  place = await tracedPlace("clawhive-lazy-");
  fake = await startFakeOpenAi();
  await writeFile(
    join(place.agents, "noter.yaml"),
    `name: noter
description: Answers with a model.
model: { provider: openai, id: gpt-test, base_url: "${fake.baseUrl}", api_key_secret: openai_key }
system_prompt: You answer.
plugins:
  - { name: files, version: "*" }
grants:
  fs.read:
    mounts: [{ guest: /workspace, host: ./workspace }]
  log: {}
`,
  );
  assert.equal((await clawhiveAsync(place, ["secret", "set", "openai_key"], "sk-test-key-0123456789", { env: untraced() })).code, 0);
});
after(async () => {
  await fake.close();
  await place.collector.close();
  await rm(place.root, { recursive: true, force: true });
});

function untraced(): Record<string, string> {
  const { CLAWHIVE_OTLP_ENDPOINT: _endpoint, ...env } = place.env;
  return env;
}

interface Serving {
  url: string;
  token: string;
  stderr: () => string;
  /** SIGTERM, and the exit code once it has stopped. */
  stop(): Promise<number | null>;
}

/** `clawhive serve` in `place.root`, where `config` is its clawhive.yaml. */
async function serveWith(config: string): Promise<Serving> {
  await writeFile(join(place.root, "clawhive.yaml"), config);
  const child = spawn(process.execPath, [BIN, "serve", "--data-dir", place.data, "--agents", place.agents, "--port", "0"], { cwd: place.root, env: untraced(), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => (child.kill("SIGKILL"), reject(new Error(`serve did not listen within 120 s:\n${stderr}`))), 120_000);
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (url) (clearTimeout(timer), resolve(url));
    });
    void exited.then((code) => (clearTimeout(timer), reject(new Error(`serve exited (${code}) before listening:\n${stderr}`))));
  });
  // The admin token is printed (before the address) on the store's first start only.
  adminToken ??= /^(chv_\S+)$/m.exec(stdout)?.[1];
  return { url, token: adminToken ?? "", stderr: () => stderr, stop: async () => (child.kill("SIGTERM"), exited) };
}

test("serve with an OTLP endpoint starts, traces a run and an MCP session over HTTP, and sends them when it stops", async () => {
  const served = await serveWith(`telemetry:\n  otlp_endpoint: ${place.collector.endpoint}\nlog:\n  level: debug\n  format: json\n`);
  let stopped: number | null = null;
  try {
    const answer = await fetch(`${served.url}/v1/runs?wait=true`, {
      method: "POST",
      headers: { authorization: `Bearer ${served.token}`, "content-type": "application/json" },
      body: JSON.stringify({ agent: "writer", tool_calls: [{ name: "files.read_file", input: { path: "/workspace/a.txt" } }] }),
    });
    assert.equal(answer.status, 201, await answer.clone().text());
    const traceId = ((await answer.json()) as { run: { trace_id: string } }).run.trace_id;
    const client = new Client({ name: "lazy-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${served.url}/mcp?agent=writer`), { requestInit: { headers: { authorization: `Bearer ${served.token}` } } });
    await client.connect(transport);
    const read = await client.callTool({ name: "files__read_file", arguments: { path: "/workspace/a.txt" } });
    assert.notEqual(read.isError, true, JSON.stringify(read));
    await transport.terminateSession();
    await client.close();
    stopped = await served.stop();
    assert.equal(stopped, 0, served.stderr());
    const run = await received(place.collector, "invoke_agent writer");
    const tool = place.collector.spans.find((s) => s.name === "execute_tool files.read_file" && s.traceId === traceId);
    assert.ok(tool && run, place.collector.spans.map((s) => s.name).join(", "));
    const server = place.collector.one("tools/call files__read_file");
    assert.equal(server.kind, SPAN_KIND.SERVER);
    assert.equal(server.attributes["network.transport"], "tcp");
    // The server's log names the ToolCall's span on the ToolCall's line.
    const lines = served.stderr().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
    const line = lines.find((l) => l.msg === "tool call" && l.trace_id === traceId);
    assert.equal(line?.span_id, tool.spanId, served.stderr());
  } finally {
    if (stopped === null) await served.stop();
    await rm(join(place.root, "clawhive.yaml"), { force: true });
  }
});

test("serve with log.format pretty writes readable lines (pino-pretty), not JSON", async () => {
  const served = await serveWith("log:\n  format: pretty\n");
  try {
    assert.equal((await fetch(`${served.url}/health`)).status, 200);
  } finally {
    assert.equal(await served.stop(), 0, served.stderr());
    await rm(join(place.root, "clawhive.yaml"), { force: true });
  }
  assert.match(served.stderr(), /INFO.*: request/, served.stderr());
  assert.doesNotMatch(served.stderr(), /^\{"level"/m);
});

test("run at a colour terminal renders the answer as Markdown (marked, marked-terminal); control: to a pipe it is as written", async () => {
  for (const [env, bold] of [[{ FORCE_COLOR: "1" }, true], [{ NO_COLOR: "1" }, false]] as const) {
    fake.reply({ type: "text", text: "Hello **there**." });
    const done = await clawhiveAsync(place, ["run", "noter", "say hello", "--agents", place.agents], undefined, { env: { ...untraced(), ...env } });
    assert.equal(done.code, 0, done.stderr);
    // At a terminal the text as it streams is replaced by its rendering once the answer is whole.
    assert.equal(/\u001b\[1mthere\u001b\[22m/.test(done.stdout), bold, JSON.stringify(done.stdout));
    if (!bold) assert.ok(done.stdout.includes("Hello **there**.") && !done.stdout.includes("\u001b"), JSON.stringify(done.stdout));
  }
});

test("run through the model proxy (llm.proxy_url, undici's ProxyAgent) reaches the model through a CONNECT tunnel", async () => {
  const proxy = await startFakeProxy();
  try {
    fake.reply({ type: "text", text: "via proxy" });
    const done = await clawhiveAsync(place, ["run", "noter", "hello", "--agents", place.agents], undefined, { env: { ...untraced(), CLAWHIVE_LLM_PROXY_URL: proxy.url, NO_COLOR: "1" } });
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /via proxy/);
    assert.equal(proxy.connects.length, 1);
    assert.equal(proxy.connects[0]?.target, new URL(fake.baseUrl).host);
  } finally {
    await proxy.close();
  }
});

test("a command on a libSQL server store (@libsql/client) runs a tool and finds its run there", needsSqld(), async () => {
  const sqld = await startSqld();
  try {
    const env = { ...untraced(), CLAWHIVE_STORE_URL: sqld.url };
    const call = await clawhiveAsync(place, ["call", "files.read_file", JSON.stringify({ path: "/workspace/a.txt" }), "--agent", "writer", "--agents", place.agents], undefined, { env });
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stdout, /alpha/);
    const runs = await clawhiveAsync(place, ["runs", "list", "--json"], undefined, { env });
    assert.equal(runs.code, 0, runs.stderr);
    assert.equal((JSON.parse(runs.stdout) as unknown[]).length, 1);
  } finally {
    await sqld.stop();
  }
});
