import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-llm/index.js";
import { cliPlace, clawhiveAsync, type CliPlace } from "./fixtures.js";

let place: CliPlace;
let fake: FakeOpenAi;

before(async () => {
  place = await cliPlace("clawhive-cli-run-model-");
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
});

after(async () => {
  await fake.close();
  await rm(place.root, { recursive: true, force: true });
});

/** The real binary, asynchronously: the fake model server answers from this process. */
const clawhive = (args: string[], input?: string) => clawhiveAsync(place, args, input);

test("clawhive run without --call: the agent's model picks the tools, its answer is printed, a conversation continues", async () => {
  assert.equal((await clawhive(["secret", "set", "openai_key"], "sk-test-key-0123456789")).code, 0);
  fake.reply({ type: "tool_calls", text: "Let me look.", calls: [{ name: "files__list_dir", arguments: { path: "/workspace" } }] });
  fake.reply({ type: "text", text: "The workspace is empty." });
  const first = await clawhive(["run", "lister", "what is in the workspace?", "--agents", place.agents]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, /driven by its model \(conversation (conv_\S+)\)/);
  assert.match(first.stdout + first.stderr, /The workspace is empty\./);
  const conversation = /conversation (conv_[^)\s]+)/.exec(first.stderr)?.[1];
  assert.ok(conversation, first.stderr);
  // The model saw exactly the agent's tools, and the key from the secret store.
  const seen = fake.requests[0]!;
  assert.deepEqual((seen.body as { tools: Array<{ function: { name: string } }> }).tools.map((t) => t.function.name).sort(), ["files__edit_file", "files__glob", "files__grep", "files__list_dir", "files__read_file", "files__write_file"].sort());
  assert.equal(seen.headers.authorization, "Bearer sk-test-key-0123456789");

  fake.reply({ type: "text", text: "Still empty." });
  const second = await clawhive(["run", "lister", "and now?", "--conversation", conversation, "--agents", place.agents]);
  assert.equal(second.code, 0, second.stderr);
  const messages = (fake.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  assert.ok(messages.some((m) => m.role === "user" && JSON.stringify(m.content).includes("what is in the workspace?")), JSON.stringify(messages).slice(0, 500));
});

test("a call the loop refuses as repeated is shown in the run's output and audited as a denial; control: the calls before it run", async () => {
  const list = { type: "tool_calls" as const, calls: [{ name: "files__list_dir", arguments: { path: "/workspace" } }] };
  fake.reply(list, list, list, { type: "text", text: "I stop here." });
  const { code, stdout, stderr } = await clawhive(["run", "lister", "list it again and again", "--agents", place.agents]);
  assert.equal(code, 0, stderr);
  const out = stdout + stderr;
  assert.equal(out.match(/^ok +files\.list_dir/gm)?.length, 2, `control: the first two calls run\n${out}`);
  assert.match(out, /^error +files\.list_dir: repeated-call: stopped: files\.list_dir was already called 2 times/m);
  const runId = /run (run_\S+) started/.exec(stderr)?.[1];
  assert.ok(runId, stderr);
  const audit = await clawhive(["audit", "tail", "--run", runId, "--json"]);
  assert.equal(audit.code, 0, audit.stderr);
  const denied = (JSON.parse(audit.stdout) as Array<{ status: string; denial?: { reason: string } | null }>).filter((r) => r.status === "denied");
  assert.deepEqual(denied.map((r) => r.denial?.reason), ["repeated-call"], "one denial on record, with its reason code");
});

test("--verbose shows the model's Steps and sandbox events as readable lines, not JSON; --json is the raw run", async () => {
  fake.reply({ type: "tool_calls", calls: [{ name: "files__list_dir", arguments: { path: "/workspace" } }] }, { type: "text", text: "Empty." });
  const verbose = await clawhive(["run", "lister", "what is there?", "--agents", place.agents, "--verbose"]);
  assert.equal(verbose.code, 0, verbose.stderr);
  const lines = (verbose.stdout + verbose.stderr).split("\n");
  assert.ok(lines.some((line) => /^step +\S+ tool_call \(model gpt-test, \d+ tokens in, \d+ out, 1 tool call\)$/.test(line)), `a Step line\n${lines.join("\n")}`);
  assert.ok(lines.some((line) => /^sandbox +files (bound|released)/.test(line)), "the extra detail: sandbox instance events");
  assert.deepEqual(lines.filter((line) => /^\S+ +[{[]"/.test(line)), [], "no event printed as raw JSON");
  assert.ok(lines.some((line) => /^ok +files\.list_dir/.test(line)), "control: the same lines as without --verbose");
  fake.reply({ type: "text", text: "Still empty." });
  const json = await clawhive(["run", "lister", "and now?", "--agents", place.agents, "--json"]);
  assert.equal(json.code, 0, json.stderr);
  assert.equal((JSON.parse(json.stdout) as { status: string }).status, "ended", "control: --json prints the run as JSON");
});
