/**
 * `clawhive chat`: through pipes (what a script sees), and in a pseudo-terminal driven with
 * tmux (what a person sees: the rendered answer, the inline approval, Ctrl-C).
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-llm/index.js";
import { BIN, cliPlace, clawhiveAsync, type CliPlace } from "./fixtures.js";

const run = promisify(execFile);
let place: CliPlace;
let fake: FakeOpenAi;

before(async () => {
  place = await cliPlace("clawhive-cli-chat-");
  fake = await startFakeOpenAi();
  await writeFile(
    join(place.agents, "noter.yaml"),
    `name: noter
description: Writes notes with a model.
model: { provider: openai, id: gpt-test, base_url: "${fake.baseUrl}", api_key_secret: openai_key }
system_prompt: You write notes with files.write_file.
plugins:
  - { name: files, version: "*" }
grants:
  fs.read:
    mounts: [{ guest: /workspace, host: ./workspace }]
  fs.write:
    mounts: [{ guest: /workspace, host: ./workspace }]
  log: {}
`,
  );
  assert.equal((await clawhiveAsync(place, ["secret", "set", "openai_key"], "sk-test-key-0123456789")).code, 0);
});

after(async () => {
  await fake.close();
  await rm(place.root, { recursive: true, force: true });
});

test("through pipes: each line is a message of one conversation; /commands work; the answer is printed as written", async () => {
  fake.reply({ type: "text", text: "Hello **there**." });
  fake.reply({ type: "text", text: "Still here." });
  const before = fake.requests.length;
  const { code, stdout, stderr } = await clawhiveAsync(place, ["chat", "noter", "--agents", place.agents], "hi\n/tools\nagain\n/bogus\n/quit\n");
  assert.equal(code, 0, stderr);
  assert.match(stdout, /Hello \*\*there\*\*\./, "no colour to a pipe: the Markdown as written");
  assert.match(stdout, /Still here\./);
  assert.match(stdout, /^files\.write_file +guarded/m, "/tools lists the agent's tools");
  assert.match(stderr, /unknown command \/bogus; the commands: \/new/);
  // The second message carried the first: one conversation.
  const second = fake.requests[before + 1]!.body as { messages: Array<{ role: string; content: unknown }> };
  assert.ok(second.messages.some((m) => m.role === "user" && JSON.stringify(m.content).includes("hi")));
});

const TMUX = "/usr/bin/tmux";

test("in a terminal: the answer rendered as Markdown, an approval taken inline showing what would run, Ctrl-C cancels the step, the transcript reads", { skip: !existsSync(TMUX) && "tmux is not installed" }, async (t) => {
  const socket = join(place.root, "tmux.sock");
  const tmux = (...args: string[]) => run(TMUX, ["-S", socket, ...args]);
  const env = Object.entries({ ...process.env, TERM: "xterm-256color" })
    .filter(([name]) => (!name.startsWith("CLAWHIVE_") || name === "CLAWHIVE_BUILD_CACHE") && name !== "NO_COLOR" && name !== "FORCE_COLOR")
    .map(([name, value]) => `${name}=${JSON.stringify(value ?? "")}`);
  const command = `env -i ${env.join(" ")} ${process.execPath} ${BIN} chat noter --agents ${place.agents} --data-dir ${place.data}; echo CHAT-EXITED-$?; sleep 30`;
  await tmux("new-session", "-d", "-x", "120", "-y", "50", "-s", "chat", command);
  t.after(() => spawnSync(TMUX, ["-S", socket, "kill-server"]));
  const screen = async () => (await tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "chat")).stdout;
  const waitFor = async (pattern: RegExp) => {
    for (let i = 0; i < 600; i++) {
      const text = await screen();
      if (pattern.test(text)) return text;
      await sleep(100);
    }
    assert.fail(`never saw ${pattern} on screen:\n${await screen()}`);
  };
  await waitFor(/you> /);

  fake.reply({ type: "tool_calls", text: "Writing it.", calls: [{ name: "files__write_file", arguments: { path: "/workspace/todo.md", content: "milk" } }] });
  fake.reply({ type: "text", text: "# Done\n\nI wrote **todo.md**:\n\n- `milk`" });
  await tmux("send-keys", "-t", "chat", "note milk", "Enter");
  // The approval shows exactly what would run before it is asked.
  const asked = await waitFor(/\[o\/r\/d\]/);
  assert.match(asked, /files\.write_file/);
  assert.match(asked, /\/workspace\/todo\.md/);
  assert.match(asked, /milk/);
  await tmux("send-keys", "-t", "chat", "o", "Enter");
  const answered = await waitFor(/I wrote .*todo\.md[\s\S]*you> /);
  assert.doesNotMatch(answered, /# Done/, "the heading is rendered, not shown as Markdown source");
  assert.doesNotMatch(answered, /\*\*todo\.md\*\*/);
  assert.match(answered, /^ok +files\.write_file/m, "the tool call's outcome is a compact line");
  assert.equal(await readFile(join(place.data, "workspace", "todo.md"), "utf8"), "milk");

  // The answer streams: its first words are on screen while the model still writes (the fake
  // holds the last fragment until they are seen), rendered once its block is complete.
  let release!: () => void;
  fake.reply({ type: "text", text: "Streaming **words** arrive one by one, and the last ones wait.", hold: new Promise<void>((resolve) => (release = resolve)) });
  await tmux("send-keys", "-t", "chat", "stream please", "Enter");
  const partial = await waitFor(/you> stream please\n[\s\S]*Streaming/);
  const sincePrompt = partial.slice(partial.lastIndexOf("you> stream please") + "you> stream please".length);
  assert.doesNotMatch(sincePrompt, /ones wait\./, "the held fragment has not arrived");
  assert.doesNotMatch(sincePrompt, /you> /, "the answer has not ended");
  release();
  const streamed = await waitFor(/the last ones wait\.[\s\S]*you> $/m);
  const answerShown = streamed.slice(streamed.lastIndexOf("you> stream please"));
  assert.doesNotMatch(answerShown, /\*\*words\*\*/, "rendered as Markdown once complete");
  assert.equal(answerShown.split("ones wait.").length - 1, 1, `shown once:\n${answerShown}`);

  // Ctrl-C while the model thinks cancels that run; the conversation goes on.
  fake.reply({ type: "hang" });
  await tmux("send-keys", "-t", "chat", "take forever", "Enter");
  await waitFor(/you> take forever\n[\s\S]*/);
  await sleep(500);
  await tmux("send-keys", "-t", "chat", "C-c");
  await waitFor(/cancelled run run_\S+[\s\S]*you> $/m);
  await tmux("send-keys", "-t", "chat", "/quit", "Enter");
  const transcript = await waitFor(/CHAT-EXITED-0/);
  assert.ok(transcript.indexOf("note milk") < transcript.indexOf("I wrote") && transcript.indexOf("I wrote") < transcript.indexOf("take forever"), transcript);
});
