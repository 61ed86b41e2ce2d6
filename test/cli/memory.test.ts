import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { memoryCommand } from "../../runtime/cli/memory.js";
import { InvalidInputError } from "../../runtime/errors.js";
import { readMemoryFile } from "../../runtime/memory/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { apiFixture, type ApiFixture } from "../api/routes-fixtures.js";
import { FILES_PLUGIN } from "../helpers/runtime.js";
import { BIN } from "./fixtures.js";

let f: ApiFixture;
let tools: string;

before(async () => {
  f = await apiFixture({ runtime: { pluginDirs: [FILES_PLUGIN, join(PROJECT_ROOT, "plugins", "memory")] } });
  await f.runtime.defineAgent({
    name: "noter",
    description: "memory CLI test agent",
    model: { provider: "anthropic", id: "m" },
    system_prompt: "s",
    plugins: [{ name: "memory", version: "*" }],
    grants: { memory: { read: ["agent"], write: ["agent"] } },
  });
  tools = await mkdtemp(join(tmpdir(), "clawhive-memory-cli-"));
  // Direct mode finds the agent in an agents folder, as the server finds it among its agents.
  await mkdir(join(tools, "agents"));
  await writeFile(join(tools, "agents", "noter.yaml"), "name: noter\ndescription: memory CLI test agent\nmodel: { provider: anthropic, id: m }\nsystem_prompt: s\nplugins: [{ name: memory, version: '*' }]\ngrants: { memory: { read: [agent], write: [agent] } }\n");
  await writeFile(join(tools, "token"), `${f.token.admin}\n`);
  // An editor that appends a line to the file it is given.
  await writeFile(join(tools, "editor.sh"), "#!/bin/sh\nprintf 'Edited by the test editor.\\n' >> \"$1\"\n");
  await chmod(join(tools, "editor.sh"), 0o755);
});
after(async () => {
  await f.close();
  await rm(tools, { recursive: true, force: true });
});

async function cli(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  console.log = (...a: unknown[]) => void out.push(a.join(" "));
  console.error = (...a: unknown[]) => void err.push(a.join(" "));
  try {
    return { code: await memoryCommand(argv), out: out.join("\n"), err: err.join("\n") };
  } finally {
    console.log = log;
    console.error = error;
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const MODES = [
  { name: "direct", flags: () => ["--data-dir", f.dataDir, "--agents", join(tools, "agents")] },
  { name: "server", flags: () => ["--server", f.server.base, "--token-file", join(tools, "token")] },
] as const;

for (const mode of MODES) {
  test(`write, search, forget (${mode.name})`, async () => {
    const word = `zebra${mode.name}`;
    const written = await cli(["write", "noter", `The ${word} lives in the north pen.`, "--title", "Zoo", ...mode.flags()]);
    assert.equal(written.code, 0, written.err);
    const id = /remembered (\S+)/.exec(written.out)![1]!;
    const found = await cli(["search", "noter", word, "--json", ...mode.flags()]);
    assert.equal(found.code, 0, found.err);
    const hits = JSON.parse(found.out).hits as Array<{ episode_id: string; source: string; title: string }>;
    assert.deepEqual(hits.map((h) => [h.episode_id, h.source, h.title]), [[id, "person", "Zoo"]]);
    // Ranked, the score relative to the best hit's: no opaque raw number.
    assert.match((await cli(["search", "noter", word, ...mode.flags()])).out, new RegExp(`^#1  100% of best  ${id}  noter  person`, "m"));
    assert.equal((await cli(["forget", "noter", id, ...mode.flags()])).code, 0);
    const again = await cli(["forget", "noter", id, ...mode.flags()]);
    assert.equal(again.code, 1);
    assert.match(again.err, /no episode/);
    assert.equal(JSON.parse((await cli(["search", "noter", word, "--json", ...mode.flags()])).out).hits.length, 0);
  });

  test(`show and edit MEMORY.md through $EDITOR (${mode.name})`, async () => {
    const before = await readMemoryFile(f.dataDir, "noter");
    const edited = await cli(["edit", "noter", ...mode.flags()], { EDITOR: join(tools, "editor.sh"), VISUAL: "" });
    assert.equal(edited.code, 0, edited.err);
    assert.equal(await readMemoryFile(f.dataDir, "noter"), `${before}Edited by the test editor.\n`);
    const shown = await cli(["show", "noter", ...mode.flags()]);
    assert.match(shown.out, /Edited by the test editor\./);
    // A failing editor changes nothing.
    assert.equal((await cli(["edit", "noter", ...mode.flags()], { EDITOR: "false", VISUAL: "" })).code, 1);
    assert.equal(await readMemoryFile(f.dataDir, "noter"), `${before}Edited by the test editor.\n`);
  });

  test(`bad input is refused, naming what is wrong (${mode.name})`, async () => {
    for (const argv of [
      ["search", "noter", "x", "--k", "0"],
      ["search", "noter", "x", "--k", "abc"],
      ["search", "noter", "x", "--scope", "../user"],
      ["write", "noter", "note", "--scope", "project/a/b"],
      ["write", "noter", "   "],
      ["frobnicate", "noter"],
      ["search", "noter"],
    ]) {
      await assert.rejects(cli([...argv, ...mode.flags()]), (error: Error & { status?: number }) => (error instanceof InvalidInputError || error.status === 400) && /scope|k|text|usage|unknown/.test(error.message), argv.join(" "));
    }
  });
}

test("an unknown agent is refused in both modes; nothing is written", async () => {
  for (const mode of MODES) {
    await assert.rejects(cli(["write", "notter", "typo", ...mode.flags()]), (error: Error & { status?: number }) => error.status === 404 && /notter/.test(error.message), mode.name);
    await assert.rejects(cli(["show", "notter", ...mode.flags()]), (error: Error & { status?: number }) => error.status === 404, mode.name);
  }
  assert.deepEqual(await (await f.runtime.memory()).partitions("notter"), []);
});

test("the binary exits non-zero on bad usage and names what is wrong", () => {
  const result = spawnSync(process.execPath, [BIN, "memory", "search", "noter", "x", "--scope", "Agent", "--data-dir", f.dataDir], { encoding: "utf8", timeout: 300_000 });
  assert.equal(result.status, 2, result.stderr);
  assert.match(result.stderr, /scope/);
  const usage = spawnSync(process.execPath, [BIN, "memory"], { encoding: "utf8", timeout: 300_000 });
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /usage: clawhive memory/);
});
