/**
 * The shipped command (bin/clawhive.js, the bundle) traces the runs it makes itself — `call`,
 * `run`, `chat` — and sends them to the OTLP/HTTP endpoint of clawhive.yaml or
 * CLAWHIVE_OTLP_ENDPOINT before it exits; with no endpoint it sends nothing. The collector is
 * local and reads the OTLP JSON the exporter sends.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { clawhiveAsync } from "../cli/fixtures.js";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-llm/index.js";
import { SPAN_KIND } from "../helpers/otlp-collector.js";
import { received, spansOf, tracedPlace, type TracedPlace } from "./cli-fixtures.js";

const VERSION = (JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string }).version;
let place: TracedPlace;
let fake: FakeOpenAi;

before(async () => {
  place = await tracedPlace("clawhive-cli-traces-");
  fake = await startFakeOpenAi();
  await writeFile(
    join(place.agents, "lister.yaml"),
    `name: lister
description: Lists its workspace with a model.
model: { provider: openai, id: gpt-test, base_url: "${fake.baseUrl}", api_key_secret: openai_key }
system_prompt: You list files.
plugins:
  - { name: files, version: "*" }
grants:
  fs.read:
    mounts: [{ guest: /workspace, host: ./workspace }]
  log: {}
`,
  );
  const set = await clawhiveAsync(place, ["secret", "set", "openai_key"], "sk-test-key-0123456789", { env: place.env });
  assert.equal(set.code, 0, set.stderr);
});
after(async () => {
  await fake.close();
  await place.collector.close();
  await rm(place.root, { recursive: true, force: true });
});
beforeEach(() => place.collector.clear());

const clawhive = (args: string[], input?: string, env = place.env) => clawhiveAsync(place, [...args, "--agents", place.agents], input, { env });

test("clawhive call: its run's spans reach the collector before the command exits, as one tree under the run's trace", async () => {
  const done = await clawhive(["call", "files.read_file", JSON.stringify({ path: "/workspace/a.txt" }), "--agent", "writer"]);
  assert.equal(done.code, 0, done.stderr);
  // Sent before the process exited: nothing is waited for here.
  const root = place.collector.one("invoke_agent writer");
  const tool = place.collector.one("execute_tool files.read_file");
  assert.equal(tool.traceId, root.traceId);
  assert.equal(tool.parentSpanId, root.spanId);
  assert.equal(tool.kind, SPAN_KIND.INTERNAL);
  const hosts = place.collector.named("host ");
  assert.ok(hosts.length > 0 && hosts.every((h) => h.parentSpanId === tool.spanId), place.collector.spans.map((s) => s.name).join(", "));
  assert.equal(root.resource["service.name"], "clawhive");
  assert.equal(root.resource["service.version"], VERSION);
  assert.match(String(root.attributes["clawhive.run.id"]), /^run_/);
});

test("clawhive run: the model's Step, its chat call (CLIENT, traceparent sent to the provider) and the tool it asked for", async () => {
  fake.reply({ type: "tool_calls", text: "Let me look.", calls: [{ name: "files__list_dir", arguments: { path: "/workspace" } }] });
  fake.reply({ type: "text", text: "One file." });
  const before = fake.requests.length;
  const done = await clawhive(["run", "lister", "what is in the workspace?"]);
  assert.equal(done.code, 0, done.stderr);
  const root = place.collector.one("invoke_agent lister");
  const trace = spansOf(place.collector, root.traceId);
  const chats = trace.get("chat gpt-test") ?? [];
  assert.equal(chats.length, 2, [...trace.keys()].join(", "));
  assert.ok(chats.every((c) => c.kind === SPAN_KIND.CLIENT && c.attributes["gen_ai.request.model"] === "gpt-test"));
  const sent = fake.requests.slice(before).map((r) => r.headers.traceparent);
  assert.deepEqual(sent.sort(), chats.map((c) => `00-${c.traceId}-${c.spanId}-01`).sort(), "each model call carried its own span's traceparent");
  const [tool] = trace.get("execute_tool files.list_dir") ?? [];
  assert.ok(tool);
  const step = place.collector.spans.find((s) => s.spanId === tool.parentSpanId);
  assert.match(step?.name ?? "", /^step /, "a model's ToolCall is under its Step");
  assert.equal(step?.parentSpanId, root.spanId);
});

test("clawhive chat (through pipes): each message's run is traced and sent when the chat ends", async () => {
  fake.reply({ type: "text", text: "Hello." });
  const done = await clawhive(["chat", "lister"], "hi\n/quit\n");
  assert.equal(done.code, 0, done.stderr);
  const root = await received(place.collector, "invoke_agent lister");
  assert.ok((spansOf(place.collector, root.traceId).get("chat gpt-test") ?? []).length >= 1);
});

test("the endpoint from clawhive.yaml in the working folder traces as the variable does; control: with neither, nothing is sent", async () => {
  const { CLAWHIVE_OTLP_ENDPOINT: _endpoint, ...untraced } = place.env;
  const input = JSON.stringify({ path: "/workspace/a.txt" });
  const quiet = await clawhiveAsync(place, ["call", "files.read_file", input, "--agent", "writer", "--agents", place.agents], undefined, { env: untraced, cwd: place.root });
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.deepEqual(place.collector.spans, []);
  await writeFile(join(place.root, "clawhive.yaml"), `telemetry:\n  otlp_endpoint: ${place.collector.endpoint}\n  service_name: clawhive-cli-test\n`);
  try {
    const traced = await clawhiveAsync(place, ["call", "files.read_file", input, "--agent", "writer", "--agents", place.agents], undefined, { env: untraced, cwd: place.root });
    assert.equal(traced.code, 0, traced.stderr);
    assert.equal(place.collector.one("invoke_agent writer").resource["service.name"], "clawhive-cli-test");
  } finally {
    await rm(join(place.root, "clawhive.yaml"));
  }
});

test("a malformed endpoint is refused before anything runs, naming the variable (exit 2)", async () => {
  const done = await clawhive(["call", "files.read_file", JSON.stringify({ path: "/workspace/a.txt" }), "--agent", "writer"], undefined, { ...place.env, CLAWHIVE_OTLP_ENDPOINT: "not a url" });
  assert.equal(done.code, 2, done.stderr);
  assert.match(done.stderr, /CLAWHIVE_OTLP_ENDPOINT/);
  assert.doesNotMatch(done.stderr, /unexpected error/);
});
