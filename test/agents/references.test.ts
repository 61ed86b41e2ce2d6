import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAgentManifest, referenceProblems, type AgentManifest } from "../../runtime/agents/index.js";
import type { Skill } from "../../runtime/skills/index.js";

/** An agent from YAML lines added to a minimal manifest with the files plugin. */
function agent(extra: string, grants = "  fs.read:\n    mounts:\n      - { guest: /n, host: /tmp/n }\n"): AgentManifest {
  const text = `name: a\ndescription: d\nmodel: { provider: anthropic, id: m }\nsystem_prompt: s\nplugins:\n  - { name: files, version: "*" }\ngrants:\n${grants}${extra}`;
  return parseAgentManifest(text, { file: "a.yaml", baseDir: "/tmp", checkHostDirs: false }).manifest;
}

const skill = (name: string, requiredTools: string[]): Skill => ({ name, description: name, requiredTools, body: "b", file: `${name}/SKILL.md` });
const skills = new Map([["notes", skill("notes", ["files.read_file"])], ["mailer", skill("mailer", ["mail.list_unread"])], ["writer", skill("writer", ["files.write_file"])]]);
const tools = [
  { plugin: "files", name: "read_file", qualifiedName: "files.read_file", capabilities: ["fs.read"] },
  { plugin: "files", name: "write_file", qualifiedName: "files.write_file", capabilities: ["fs.write"] },
  { plugin: "mail", name: "list_unread", qualifiedName: "mail.list_unread", capabilities: ["gmail.read"] },
];
const spawn = (agents: string[]) => `  agent.spawn: { agents: [${agents.join(", ")}] }\n`;
const read = "  fs.read:\n    mounts:\n      - { guest: /n, host: /tmp/n }\n";

test("skills and sub-agents an agent could not use are errors naming the field; a fitting agent has none", () => {
  type Case = [what: string, manifest: AgentManifest, withTools: boolean, expected: Array<[path: string, message: RegExp]>];
  const cases: Case[] = [
    ["a skill and a sub-agent that fit (control)", agent("skills: [notes]\nsub_agents: [helper]\n", read + spawn(["helper"])), true, []],
    ["a skill that does not exist", agent("skills: [ghost]\n"), true, [["skills[0]", /no skill named ghost \(expected skills\/ghost\/SKILL\.md\)/]]],
    ["a skill whose tool needs a capability not granted (the tool named)", agent("skills: [notes, writer]\n"), true, [["skills[1]", /skill writer requires tool files\.write_file, which needs fs\.write, not granted to agent a/]]],
    ["a skill whose tool's plugin is not listed", agent("skills: [mailer]\n"), true, [["skills[0]", /requires tool mail\.list_unread, which agent a does not have/]]],
    ["without installed tools: the plugin list is still checked", agent("skills: [mailer, writer]\n"), false, [["skills[0]", /requires tool mail\.list_unread, which agent a does not list/]]],
    ["a sub-agent without an agent.spawn grant", agent("sub_agents: [helper]\n"), true, [["sub_agents[0]", /helper is listed but grants\.agent\.spawn\.agents does not name it/]]],
    ["a sub-agent agent.spawn does not name", agent("sub_agents: [helper, other]\n", read + spawn(["helper"])), true, [["sub_agents[1]", /other is listed but grants\.agent\.spawn\.agents does not name it/]]],
    ["a sub-agent under limits.max_depth 0", agent("sub_agents: [helper]\nlimits: { max_depth: 0 }\n", read + spawn(["helper"])), true, [["limits.max_depth", /is 0, so no sub-agent can ever start, yet sub_agents lists helper/]]],
    ["max_depth 0 without sub-agents (control)", agent("limits: { max_depth: 0 }\n"), true, []],
  ];
  for (const [what, manifest, withTools, expected] of cases) {
    const problems = referenceProblems(manifest, { skills, ...(withTools ? { tools } : {}) });
    assert.deepEqual(problems.map((p) => p.path), expected.map(([path]) => path), what);
    for (const [i, [, message]] of expected.entries()) assert.match(problems[i]!.message, message, what);
  }
});
