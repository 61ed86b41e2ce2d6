/**
 * `clawhive run` streams the model's answer: on the store and through a server, the first words
 * are printed while the model is still writing (the fake model server holds its last fragment
 * until this test has seen the first ones), and the answer is printed once.
 */
import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-llm/index.js";
import { cliPlace, type CliPlace } from "./fixtures.js";
import { cli, serve, start, type Mode, type Served } from "./client-fixtures.js";

let place: CliPlace;
let fake: FakeOpenAi;
let server: Served;
let holds = 0;

before(async () => {
  place = await cliPlace("clawhive-cli-stream-");
  fake = await startFakeOpenAi();
  await writeFile(
    join(place.agents, "talker.yaml"),
    `name: talker
description: Answers with a model.
model: { provider: openai, id: gpt-test, base_url: "${fake.baseUrl}", api_key_secret: openai_key }
system_prompt: You answer briefly.
plugins:
  - { name: files, version: "*" }
grants:
  log: {}
`,
  );
  const set = cli({ kind: "direct", place }, ["secret", "set", "openai_key"], { input: "sk-test-key-0123456789" });
  assert.equal(set.code, 0, set.stderr);
  server = await serve(place);
});

after(async () => {
  await server?.stop();
  await fake.close();
  await rm(place.root, { recursive: true, force: true });
});

const FIRST = "Streaming starts here, ";
const LAST = "and the final words arrive last.";

for (const kind of ["direct", "server"] as const) {
  test(`clawhive run (${kind === "direct" ? "on the store" : "through --server"}): the answer's first words are printed before the model has finished`, async () => {
    const mode: Mode = kind === "direct" ? { kind, place } : { kind, server };
    let release!: () => void;
    // Four fragments of 20 characters: the first three are sent, the last one is held.
    const answer = `${FIRST}${"x".repeat(80 - FIRST.length - LAST.length)}${LAST}`;
    fake.reply({ type: "text", text: answer, hold: new Promise<void>((resolve) => (release = resolve)) });
    const child = start(mode, ["run", "talker", "say something"]);
    try {
      await fake.holding(++holds);
      await child.waitFor(new RegExp(FIRST));
      const sofar = child.output();
      assert.equal(sofar.code, null, "the run has not ended: the model is still writing");
      assert.doesNotMatch(sofar.stdout, /final words/);
      assert.doesNotMatch(sofar.stdout + sofar.stderr, /ended/);
    } finally {
      release();
    }
    const done = await child.done;
    assert.equal(done.code, 0, done.stderr);
    assert.equal(done.stdout.split(LAST).length - 1, 1, `the answer is printed once:\n${done.stdout}`);
    assert.ok(done.stdout.includes(answer), done.stdout);
  });
}
