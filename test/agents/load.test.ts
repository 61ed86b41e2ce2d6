/** Loading a folder of manifests: file names, cross-references, spawn-wider-agent. */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { stringify } from "yaml";
import { AgentManifestError, loadAgentManifests } from "../../runtime/agents/index.js";
import { baseManifest, dataDir, withField } from "./_fixtures.js";

const agent = (name: string, patch: Record<string, unknown> = {}) => {
  let m: Record<string, unknown> = withField(baseManifest(), ["name"], name);
  for (const [key, value] of Object.entries(patch)) m = withField(m, [key], value);
  return m;
};

/** A data dir with a `capabilities/` folder holding `files` (name → manifest or raw text). */
async function folder(t: TestContext, files: Record<string, unknown>) {
  const d = await dataDir(t);
  const dir = join(d.base, "capabilities");
  await mkdir(dir);
  for (const [name, content] of Object.entries(files)) {
    await writeFile(join(dir, name), typeof content === "string" ? content : stringify(content));
  }
  return { d, dir };
}

async function loadError(dir: string, base: string): Promise<AgentManifestError> {
  const error = await loadAgentManifests(dir, { baseDir: base }).then(() => undefined, (err: unknown) => err);
  assert.ok(error instanceof AgentManifestError, `expected an AgentManifestError, got ${String(error)}`);
  return error;
}

test("load: returns manifests by name and skips non-yaml files; control for the name rule below", async (t) => {
  const { d, dir } = await folder(t, { "a.yaml": agent("a"), "b.yaml": agent("b"), "schema.json": "{}", "README.md": "#" });
  const agents = await loadAgentManifests(dir, { baseDir: d.base });
  assert.deepEqual([...agents.keys()], ["a", "b"]);
  assert.equal(agents.get("a")?.manifest.grants["fs.read"]?.mounts[0]?.host, d.workspace);
});

test("load: the file name must equal the agent name", async (t) => {
  const { d, dir } = await folder(t, { "mail.yaml": agent("mailer") });
  const error = await loadError(dir, d.base);
  assert.equal(error.message, `${join(dir, "mail.yaml")}: name: must equal the file name (mail), got mailer`);
});

test("load: a .yml file is refused, not silently skipped", async (t) => {
  const { d, dir } = await folder(t, { "a.yaml": agent("a"), "b.yml": agent("b") });
  const error = await loadError(dir, d.base);
  assert.match(error.message, /b\.yml: \(root\): agent manifests use the \.yaml extension/);
});

test("load: problems in several files are reported together", async (t) => {
  const { d, dir } = await folder(t, { "a.yaml": withField(agent("a"), ["model", "id"], undefined), "b.yaml": "name: [", "c.yaml": agent("c") });
  const error = await loadError(dir, d.base);
  assert.deepEqual(error.issues.map((i) => [i.file, i.path]), [[join(dir, "a.yaml"), "model.id"], [join(dir, "b.yaml"), "line 1, column 8"]]);
});

const REFS: [string, Record<string, unknown>, string][] = [
  ["sub_agents", { sub_agents: ["ghost"] }, "sub_agents[0]"],
  ["agent.spawn", { grants: { ...baseManifest()["grants"] as object, "agent.spawn": { agents: ["ghost"] } } }, "grants.agent.spawn.agents[0]"],
  ["schedule", { grants: { ...baseManifest()["grants"] as object, schedule: { agents: ["ghost"], max_schedules: 1 } } }, "grants.schedule.agents[0]"],
];

for (const [what, patch, at] of REFS) {
  test(`load: ${what} naming a missing agent is an error; control: naming an existing one loads`, async (t) => {
    const { d, dir } = await folder(t, { "a.yaml": agent("a", patch) });
    const error = await loadError(dir, d.base);
    assert.equal(error.message, `${join(dir, "a.yaml")}: ${at}: no agent named ghost (expected capabilities/ghost.yaml)`);
    await writeFile(join(dir, "ghost.yaml"), stringify(agent("ghost")));
    assert.equal((await loadAgentManifests(dir, { baseDir: d.base })).size, 2);
  });
}

const WIDER: [string, Record<string, unknown>, RegExp][] = [
  ["a capability the parent lacks", { grants: { ...baseManifest()["grants"] as object, log: {} } }, /grants\.log: log is not granted/],
  ["approvals.guarded: run", { approvals: { guarded: "run" } }, /approves Guarded calls for the whole run/],
  ["a lowered risk", { approvals: { lower_risk: [{ tool: "files.write_file", to: "safe", acknowledged: true }] } }, /lowers the risk of files\.write_file/],
];

for (const [what, childPatch, message] of WIDER) {
  test(`load: spawn-wider-agent when the sub-agent has ${what}; acknowledged passes; control: a narrower child needs nothing`, async (t) => {
    const parent = agent("parent", { sub_agents: ["child"] });
    const { d, dir } = await folder(t, { "parent.yaml": parent, "child.yaml": agent("child", childPatch) });
    const error = await loadError(dir, d.base);
    assert.match(error.message, /parent\.yaml: sub_agents\[0\]: dangerous combination spawn-wider-agent: sub-agent child is wider than parent: /);
    assert.match(error.message, message);
    await writeFile(join(dir, "parent.yaml"), stringify(withField(parent, ["acknowledge"], ["spawn-wider-agent"])));
    const loaded = await loadAgentManifests(dir, { baseDir: d.base });
    assert.deepEqual(loaded.get("parent")?.warnings.map((w) => w.id), ["spawn-wider-agent"]);
    await writeFile(join(dir, "parent.yaml"), stringify(parent));
    await writeFile(join(dir, "child.yaml"), stringify(agent("child", { grants: { "fs.read": { mounts: [{ guest: "/workspace/src", host: "./workspace/src" }] } } })));
    assert.deepEqual((await loadAgentManifests(dir, { baseDir: d.base })).get("parent")?.warnings, []);
  });
}

test("load: scheduling a wider agent is spawn-wider-agent, saying the scheduled run keeps its own grants", async (t) => {
  const { d, dir } = await folder(t, {
    "a.yaml": agent("a", { grants: { schedule: { agents: ["b"], max_schedules: 1 } } }),
    "b.yaml": agent("b"),
  });
  const error = await loadError(dir, d.base);
  assert.match(error.message, /a\.yaml: grants\.schedule\.agents\[0\]: dangerous combination spawn-wider-agent: scheduled agent b is wider than a: .*its own run, with b's grants/);
});

test("load: a writable mount over the manifests dir is fs-write-runtime-files", async (t) => {
  const { d, dir } = await folder(t, {});
  await writeFile(join(dir, "a.yaml"), stringify(agent("a", { grants: { "fs.write": { mounts: [{ guest: "/c", host: dir }] } } })));
  const error = await loadError(dir, d.base);
  assert.match(error.message, /a\.yaml: grants\.fs\.write\.mounts\[0\]\.host: dangerous combination fs-write-runtime-files: .* contains .*capabilities/);
});
