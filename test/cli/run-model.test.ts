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
