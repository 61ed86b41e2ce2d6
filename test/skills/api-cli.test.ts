import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { skillsCommand } from "../../runtime/cli/skills.js";
import type { Listening } from "../api/fixtures.js";
import { apiFixture, type ApiFixture } from "../api/routes-fixtures.js";

let f: ApiFixture;
let server: Listening;
let skillsDir: string;
let agent: string;

const skillText = (name: string, tools: string[]) => `---\nname: ${name}\ndescription: ${name} things\nrequires:\n  tools: [${tools.join(", ")}]\n---\nHow to ${name}.\n`;

before(async () => {
  skillsDir = await mkdtemp(join(tmpdir(), "clawhive-skills-"));
  f = await apiFixture({ runtime: { skillsDir } });
  for (const [name, tools] of [["notes", ["files.read_file"]], ["editing", ["files.write_file"]], ["triage", ["mail.list_unread"]]] as const) {
    await mkdir(join(skillsDir, name), { recursive: true });
    await writeFile(join(skillsDir, name, "SKILL.md"), skillText(name, [...tools]));
  }
  await mkdir(join(skillsDir, "broken"));
  await writeFile(join(skillsDir, "broken", "SKILL.md"), "no front matter\n");
  await mkdir(join(f.dataDir, "ws"));
  agent = "skilled";
  await f.runtime.defineAgent({
    name: agent,
    description: "reads notes",
    model: { provider: "anthropic", id: "m" },
    system_prompt: "s",
    plugins: [{ name: "files", version: "*" }],
    grants: { "fs.read": { mounts: [{ guest: "/w", host: join(f.dataDir, "ws") }] } },
    skills: ["notes", "editing", "triage"],
  });
  // The app's own skill routes, on the runtime's skills folder (the test's own).
  server = f.server;
});
after(async () => {
  await f.close();
  await rm(skillsDir, { recursive: true, force: true });
});

async function get(path: string, token = f.token.client): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.json() };
}

test("GET /v1/skills lists the skills and the files that could not be read", async () => {
  const { status, body } = await get("/v1/skills");
  assert.equal(status, 200);
  assert.deepEqual(body.skills.map((s: { name: string }) => s.name), ["editing", "notes", "triage"]);
  assert.deepEqual(body.skills[1], { name: "notes", description: "notes things", requires: { tools: ["files.read_file"] }, bytes: 13 });
  assert.equal(body.problems.length, 1);
  assert.match(body.problems[0].message, /broken\/SKILL\.md: \(root\): expected YAML front matter/);
});

test("GET /v1/skills?agent= shows the skills the agent gets and why it does not get the others", async () => {
  const { status, body } = await get(`/v1/skills?agent=${agent}`);
  assert.equal(status, 200);
  assert.equal(body.agent, agent);
  assert.deepEqual(body.skills.map((s: { name: string }) => s.name), ["notes"]);
  assert.deepEqual(body.left_out.map((l: { name: string }) => l.name), ["editing", "triage"]);
  assert.match(body.left_out[0].reason, /needs fs\.write, not granted to agent skilled/);
  assert.match(body.left_out[1].reason, /requires tool mail\.list_unread, which agent skilled does not have/);
  assert.equal((await get("/v1/skills?agent=nobody")).status, 404);
});

test("GET /v1/skills/:name gives the text; unknown names are 404; approvers may not list", async () => {
  const { status, body } = await get("/v1/skills/notes");
  assert.equal(status, 200);
  assert.equal(body.skill.text, "How to notes.");
  assert.equal((await get("/v1/skills/nope")).status, 404);
  assert.equal((await get("/v1/skills", f.token.approver)).status, 403);
});

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  console.log = (...a: unknown[]) => void out.push(a.join(" "));
  console.error = (...a: unknown[]) => void err.push(a.join(" "));
  try {
    return { code: await skillsCommand(argv), out: out.join("\n"), err: err.join("\n") };
  } finally {
    console.log = log;
    console.error = error;
  }
}

test("clawhive skills lists a skills folder (exit 1 when a file is broken)", async () => {
  const listed = await cli(["--skills", skillsDir]);
  assert.equal(listed.code, 1);
  assert.match(listed.out, /^editing +editing things +\(requires: files\.write_file\)$/m);
  assert.match(listed.err, /skill not loaded: .*broken\/SKILL\.md/);
  const json = await cli(["--skills", skillsDir, "--json"]);
  assert.deepEqual(JSON.parse(json.out).skills.map((s: { name: string }) => s.name), ["editing", "notes", "triage"]);
});

test("clawhive skills --agent through the API says which skills the agent gets", async () => {
  const { code, out } = await cli(["--server", server.base, "--token", f.token.client, "--agent", agent]);
  assert.equal(code, 0);
  assert.match(out, /^notes {2}in the system prompt/m);
  assert.match(out, /^editing {2}left out: .*needs fs\.write/m);
  const json = JSON.parse((await cli(["--server", server.base, "--token", f.token.client, "--agent", agent, "--json"])).out);
  assert.deepEqual(json.skills.map((s: { name: string }) => s.name), ["notes"]);
  await assert.rejects(cli(["--server", server.base, "--token", f.token.client, "--skills", skillsDir]), { code: "invalid_input" });
});
