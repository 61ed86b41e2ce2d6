/**
 * `clawhive conversations` through the shipped binary: a conversation whose third run passes
 * the agent's model.compaction.at_tokens is compacted by the model, the command lists what was
 * compacted, undoes it once, and refuses a second undo and a bad number.
 */
import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-llm/index.js";
import { cliPlace, clawhiveAsync, type CliPlace } from "./fixtures.js";

let place: CliPlace;
let fake: FakeOpenAi;

before(async () => {
  place = await cliPlace("clawhive-cli-conversations-");
  fake = await startFakeOpenAi();
  await writeFile(
    join(place.agents, "talker.yaml"),
    `name: talker
description: Talks long.
model:
  provider: openai
  id: gpt-test
  base_url: "${fake.baseUrl}"
  api_key_secret: openai_key
  max_tokens: 256
  context_tokens: 16000
  compaction: { at_tokens: 1200, keep_recent_turns: 1, summary_tokens: 200 }
system_prompt: You remember words.
`,
  );
});

after(async () => {
  await fake.close();
  await rm(place.root, { recursive: true, force: true });
});

const clawhive = (args: string[], input?: string) => clawhiveAsync(place, args, input);
const task = (word: string) => `Remember the word ${word}. ${"Some filler text for the context budget. ".repeat(40)}`;

test("a compacted conversation: listed with its summary and range, undone once, a second undo refused", async () => {
  assert.equal((await clawhive(["secret", "set", "openai_key"], "sk-test-key-0123456789")).code, 0);
  fake.reply({ type: "text", text: "Noted: apple." });
  const first = await clawhive(["run", "talker", task("apple"), "--agents", place.agents]);
  assert.equal(first.code, 0, first.stderr);
  const conversation = /conversation (conv_[^)\s]+)/.exec(first.stderr)?.[1];
  assert.ok(conversation, first.stderr);
  const none = await clawhive(["conversations", "compactions", conversation]);
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stderr, /has no compactions/);

  fake.reply({ type: "text", text: "Noted: banana." });
  assert.equal((await clawhive(["run", "talker", task("banana"), "--conversation", conversation, "--agents", place.agents])).code, 0);
  fake.reply({ type: "text", text: "The person asked to remember apple." }, { type: "text", text: "Noted: cherry." });
  const third = await clawhive(["run", "talker", task("cherry"), "--conversation", conversation, "--agents", place.agents, "--verbose"]);
  assert.equal(third.code, 0, third.stderr);
  const out = third.stdout + third.stderr;
  assert.match(out, /^step +step_1 compact \(model gpt-test, \d+ tokens in, \d+ out\)/m, out);
  assert.doesNotMatch(out, /The person asked to remember apple/, "the summary is not shown as the run's answer");
  assert.match(out, /Noted: cherry\./);

  const listed = await clawhive(["conversations", "compactions", conversation]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^#1 +active +messages 1–2 \(1 turn\) +\d+ → \d+ tokens +gpt-test +run_\S+ step_1 /m);
  assert.match(listed.stdout, /summary: The person asked to remember apple\./);
  const json = await clawhive(["conversations", "compactions", conversation, "--json"]);
  assert.deepEqual((JSON.parse(json.stdout) as Array<{ n: number; status: string }>).map((c) => [c.n, c.status]), [[1, "active"]]);

  const undone = await clawhive(["conversations", "undo", conversation, "1"]);
  assert.equal(undone.code, 0, undone.stderr);
  assert.match(undone.stdout, /^compaction 1 undone: from the next run on the model sees messages 1–2 \(\d+ tokens\) again instead of the summary$/m);
  assert.match((await clawhive(["conversations", "compactions", conversation])).stdout, /^#1 +undone/m);
  const again = await clawhive(["conversations", "undo", conversation, "1"]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /compaction 1 of conversation conv_\S+ was already undone/);
  const unknown = await clawhive(["conversations", "undo", conversation, "9"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /has no compaction 9/);
  const bad = await clawhive(["conversations", "undo", conversation, "first"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /first: expected a compaction number/);
  const missing = await clawhive(["conversations", "compactions", "conv_nope"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no conversation conv_nope/);
});
