import assert from "node:assert/strict";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeAnthropic, type FakeAnthropic } from "../helpers/fake-llm/index.js";
import { cliPlace, clawhiveAsync, type CliPlace } from "./fixtures.js";

/**
 * From the command line: a model-driven parent whose sub-agent waits for a person shows the
 * wait, `resume` points to the sub-agent, and resuming the sub-agent carries the parent on.
 */
let place: CliPlace;
let fake: FakeAnthropic;

const agent = (name: string, extra: string) => `name: ${name}
description: ${name} of the sub-agent test
model: { provider: anthropic, id: m, base_url: "BASE", api_key_secret: llm_key }
system_prompt: You are ${name}.
plugins:
  - { name: files, version: "*" }
grants:
  fs.read:
    mounts: [{ guest: /workspace, host: ./workspace }]
  fs.write:
    mounts: [{ guest: /workspace, host: ./workspace }]
  log: {}
${extra}`;

before(async () => {
  place = await cliPlace("clawhive-cli-sub-agent-");
  fake = await startFakeAnthropic();
  await writeFile(join(place.agents, "helper.yaml"), agent("helper", "").replace("BASE", fake.baseUrl));
  await writeFile(join(place.agents, "lead.yaml"), agent("lead", "  agent.spawn: { agents: [helper] }\nsub_agents: [helper]\n").replace("BASE", fake.baseUrl));
});
after(async () => {
  await fake.close();
  await rm(place.root, { recursive: true, force: true });
});

/** The real binary, asynchronously: the fake model server answers from this process. */
const clawhive = (args: string[], input?: string) => clawhiveAsync(place, args, input);

test("run waits with its sub-agent; resume names the sub-agent; resuming it after the approval completes the parent", async () => {
  assert.equal((await clawhive(["secret", "set", "llm_key"], "test-key-0123456789")).code, 0);
  fake.reply(
    { type: "tool_calls", calls: [{ name: "subagent_helper", arguments: { task: "write hello.txt" } }] },
    { type: "tool_calls", calls: [{ name: "files__write_file", arguments: { path: "/workspace/hello.txt", content: "hello" } }] },
  );
  const started = await clawhive(["run", "lead", "get hello.txt written", "--agents", place.agents]);
  const out = started.stdout + started.stderr;
  assert.equal(started.code, 3, out);
  const approval = /(apr_[0-9a-f-]+)/.exec(out)?.[1];
  const lead = /run (run_[0-9a-f-]+) started: agent lead/.exec(out)?.[1];
  assert.ok(approval && lead, out);
  assert.match(out, /in sub-agent run run_/, "the parent's stream shows whose approval it is");

  const shown = await clawhive(["runs", "show", lead]);
  assert.equal(shown.code, 0, shown.stderr);
  const helper = new RegExp(`waiting: sub-agent run (run_[0-9a-f-]+), which waits for approval ${approval}`).exec(shown.stdout)?.[1];
  assert.ok(helper, shown.stdout);

  const early = await clawhive(["resume", lead, "--agents", place.agents]);
  assert.equal(early.code, 3, early.stderr);
  assert.match(early.stderr, new RegExp(`waiting for sub-agent run ${helper}, which waits for approval ${approval}`));
  assert.match(early.stderr, new RegExp(`clawhive resume ${helper}`));

  assert.equal((await clawhive(["approvals", "approve", approval])).code, 0);
  fake.reply({ type: "text", text: "helper: hello.txt written" }, { type: "text", text: "lead: hello.txt is there" });
  const resumed = await clawhive(["resume", helper, "--agents", place.agents]);
  assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
  assert.match(resumed.stdout, /helper: hello\.txt written/);
  assert.match(resumed.stderr, new RegExp(`run ${lead}, which started this sub-agent run, is ended \\(completed\\)`));
  assert.equal(await readFile(join(place.data, "workspace", "hello.txt"), "utf8"), "hello");
  const done = await clawhive(["runs", "show", lead, "--json"]);
  const view = JSON.parse(done.stdout) as { status: string; endReason?: string; end_reason?: string };
  assert.equal(view.status, "ended", done.stdout);
  assert.match(JSON.stringify(fake.requests.at(-1)?.body), /helper: hello\.txt written/, "the parent's model got the child's answer");
});
