/**
 * Every shipped agent in capabilities/ passes the agent validate API's checks on a runtime with
 * every first-party plugin installed, skills and sub-agents included: the examples cannot rot
 * (a skill renamed, a tool's capabilities changed, a grant dropped) without this failing.
 */
import assert from "node:assert/strict";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { after, before, test } from "node:test";
import { AgentManifestError } from "../../runtime/agents/index.js";
import { AgentCatalog } from "../../runtime/api/routes/agent-catalog.js";
import { Runtime } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { loadSkills, skillsFor } from "../../runtime/skills/index.js";
import { tempDataDir } from "../helpers/runtime.js";

const EXAMPLES = join(PROJECT_ROOT, "capabilities");
let runtime: Runtime;
let dataDir: string;

before(async () => {
  dataDir = await tempDataDir("clawhive-examples-");
  // The examples mount ./workspace of the data dir.
  await mkdir(join(dataDir, "workspace"));
  // The default plugin dirs (every first-party plugin) and skills dir, the examples as agents.
  runtime = await Runtime.create({ dataDir, agentsDir: EXAMPLES });
});
after(async () => {
  await runtime.close();
  await rm(dataDir, { recursive: true, force: true });
});

test("every capabilities/*.yaml validates with no errors, and each skill it lists enters its prompt", async () => {
  const files = (await readdir(EXAMPLES)).filter((n) => n.endsWith(".yaml")).sort();
  assert.ok(files.length >= 4, files.join(", "));
  const catalog = new AgentCatalog(runtime, { agentsDir: EXAMPLES });
  const { skills } = await loadSkills(join(PROJECT_ROOT, "skills"));
  let listed = 0;
  for (const file of files) {
    const name = basename(file, ".yaml");
    try {
      await catalog.validate(await readFile(join(EXAMPLES, file), "utf8"), { format: "yaml", name });
    } catch (error) {
      if (error instanceof AgentManifestError) assert.fail(`${file}:\n${error.message}`);
      throw error;
    }
    const agent = runtime.agents().find((a) => a.name === name)!;
    const tools = runtime.tools().filter((t) => agent.plugins.some((p) => p.name === t.plugin && (p.tools === undefined || p.tools.includes(t.name))));
    const selected = skillsFor(agent, { skills, tools });
    assert.deepEqual(selected.leftOut, [], file);
    listed += agent.skills.length;
  }
  assert.ok(listed > 0, "the examples show skills in use");
});

test("control: the same check fails for an example listing a skill whose tools it does not have", async () => {
  const catalog = new AgentCatalog(runtime, { agentsDir: EXAMPLES });
  const text = (await readFile(join(EXAMPLES, "assistant.yaml"), "utf8")).replace("skills: [triage-inbox]", "skills: [triage-inbox, summarize-notes]");
  await assert.rejects(catalog.validate(text, { format: "yaml", name: "assistant" }), (error: unknown) => {
    assert.ok(error instanceof AgentManifestError);
    assert.deepEqual(error.issues.map((i) => i.path), ["skills[1]"]);
    assert.match(error.issues[0]!.message, /summarize-notes requires tool files\.list_dir, which agent assistant does not have/);
    return true;
  });
});
