/**
 * `model.tool_protocol: text` through the shipped binary: `clawhive run` on an agent whose model
 * has no native tool calling prints the model's words and the ToolCall it made, never the call
 * markup; a manifest naming an unknown protocol is refused with the field named.
 */
import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-llm/index.js";
import { clawhiveAsync, cliPlace, type CliPlace } from "./fixtures.js";

let place: CliPlace;
let fake: FakeOpenAi;

const agent = (name: string, protocol: string) => `name: ${name}
description: Reads notes with a model that has no tool calling.
model: { provider: openai-compatible, id: small-model, base_url: "${fake.baseUrl}", api_key_secret: llm_key, tool_protocol: ${protocol} }
system_prompt: You read notes.
plugins:
  - { name: files, version: "*", tools: [read_file] }
grants:
  fs.read:
    mounts:
      - { guest: /notes, host: ${join(place.root, "notes")} }
`;

before(async () => {
  place = await cliPlace("clawhive-cli-textproto-");
  fake = await startFakeOpenAi();
  await mkdir(join(place.root, "notes"));
  await writeFile(join(place.root, "notes", "todo.txt"), "buy milk\n");
  await writeFile(join(place.agents, "reader.yaml"), agent("reader", "text"));
  const set = await clawhiveAsync(place, ["secret", "set", "llm_key"], "sk-test-key-0123456789");
  assert.equal(set.code, 0, set.stderr);
});

after(async () => {
  await fake.close();
  await rm(place.root, { recursive: true, force: true });
});

test("clawhive run: the call in the model's text runs, and its markup is never printed", async () => {
  const first = fake.requests.length;
  fake.reply(
    { type: "text", text: 'Let me read it.\n<tool_call name="files.read_file">{"path": "/notes/todo.txt"}</tool_call>' },
    { type: "text", text: "Your list says: buy milk." },
  );
  const done = await clawhiveAsync(place, ["run", "reader", "What is on my todo list?", "--agents", place.agents]);
  assert.equal(done.code, 0, `${done.stdout}\n${done.stderr}`);
  assert.match(done.stdout, /Let me read it\./);
  assert.match(done.stdout, /Your list says: buy milk\./);
  assert.match(done.stdout + done.stderr, /files\.read_file/, "the ToolCall is shown as a ToolCall");
  assert.doesNotMatch(done.stdout + done.stderr, /<tool_call|<\/tool_call>/);
  const body = fake.requests[first]?.body as { tools?: unknown; messages: Array<{ content: string }> };
  assert.equal(body.tools, undefined, "no tools field is sent");
  assert.match(body.messages[0]!.content, /- files\.read_file\(path: string/);
});

test("a manifest with an unknown tool_protocol is refused, naming the field", async () => {
  const dir = join(place.root, "bad-agents");
  await mkdir(dir);
  await writeFile(join(dir, "reader.yaml"), agent("reader", "xml"));
  const done = await clawhiveAsync(place, ["run", "reader", "hi", "--agents", dir]);
  assert.notEqual(done.code, 0);
  assert.match(done.stderr, /model\.tool_protocol/);
});
