import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { defaultSkillsDir, loadSkills, MAX_SKILL_BYTES, parseSkill, SkillsCache } from "../../runtime/skills/index.js";

const file = "skills/notes/SKILL.md";
const doc = (front: string, body = "Do the thing.") => `---\n${front}\n---\n${body}\n`;
const parse = (text: string, folder = "notes") => parseSkill(text, { file, folder });

test("a skill: front matter, then its text", () => {
  const skill = parse(doc("name: notes\ndescription: Summarise notes.\nrequires:\n  tools: [files.read_file]", "\n# Notes\nRead them.\n"));
  assert.deepEqual({ ...skill }, { name: "notes", description: "Summarise notes.", requiredTools: ["files.read_file"], body: "# Notes\nRead them.", file });
  // requires is optional: a skill that needs no tool.
  assert.deepEqual(parse(doc("name: notes\ndescription: Plain advice.")).requiredTools, []);
  // CRLF files and a BOM are read alike.
  assert.equal(parse(`\uFEFF---\r\nname: notes\r\ndescription: d\r\n---\r\nText\r\n`).body, "Text");
});

const BAD: ReadonlyArray<[string, string, RegExp]> = [
  ["no front matter", "# Notes\nJust text.\n", /\(root\): expected YAML front matter/],
  ["unclosed front matter", "---\nname: notes\ndescription: d\n", /\(root\): expected YAML front matter/],
  ["unknown key (a skill grants nothing)", doc("name: notes\ndescription: d\ngrants: {fs.write: {}}"), /: grants: unknown key "grants"; expected one of: name, description, requires$/],
  ["unknown key under requires", doc("name: notes\ndescription: d\nrequires: {capabilities: [fs.read]}"), /requires\.capabilities: unknown key "capabilities"; expected one of: tools$/],
  ["name differs from the folder", doc("name: other\ndescription: d"), /name: is other but the folder is notes/],
  ["bad name", doc("name: Notes!\ndescription: d"), /name: expected a lowercase name/],
  ["no description", doc("name: notes"), /description: /],
  ["a tool that is not plugin.tool", doc("name: notes\ndescription: d\nrequires: {tools: [read_file]}"), /requires\.tools\.0: expected plugin\.tool/],
  ["duplicate tools", doc("name: notes\ndescription: d\nrequires: {tools: [files.read_file, files.read_file]}"), /tool names must be unique/],
  ["duplicate keys", doc("name: notes\nname: notes\ndescription: d"), /invalid YAML/],
  ["empty body", doc("name: notes\ndescription: d", ""), /\(body\): expected the skill's text/],
  ["too large", doc("name: notes\ndescription: d", "x".repeat(MAX_SKILL_BYTES)), /larger than 32768 bytes/],
];

for (const [what, text, message] of BAD) {
  test(`refused: ${what}`, () => {
    assert.throws(() => parse(text), (error: Error & { code?: string }) => {
      assert.equal(error.code, "invalid_input");
      assert.match(error.message, new RegExp(`^${file}: `));
      assert.match(error.message, message);
      return true;
    });
  });
}

test("loadSkills reads every folder, reports broken ones and keeps the rest", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "clawhive-skills-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const put = async (folder: string, text: string) => {
    await mkdir(join(dir, folder));
    await writeFile(join(dir, folder, "SKILL.md"), text);
  };
  await put("good", doc("name: good\ndescription: fine"));
  await put("renamed", doc("name: other\ndescription: d"));
  await mkdir(join(dir, "empty"));
  await writeFile(join(dir, "README.md"), "not a skill folder");
  const { skills, problems } = await loadSkills(dir);
  assert.deepEqual([...skills.keys()], ["good"]);
  assert.deepEqual(problems.map((p) => p.message.replace(`${dir}/`, "")), [
    "empty/SKILL.md: (root): no SKILL.md in this folder",
    "renamed/SKILL.md: name: is other but the folder is renamed; they must be the same",
  ]);
  // Control: a missing folder has no skills and no problem.
  assert.deepEqual(await loadSkills(join(dir, "nowhere")), { skills: new Map(), problems: [] });
});

test("the project's example skills load without problems", async () => {
  const { skills, problems } = await loadSkills(defaultSkillsDir());
  assert.deepEqual(problems, []);
  assert.deepEqual(skills.get("summarize-notes")?.requiredTools, ["files.list_dir", "files.read_file"]);
  assert.deepEqual(skills.get("triage-inbox")?.requiredTools, ["mail.list_unread", "mail.read_message"]);
});

test("the skills cache reads the folder again only when a skill is added, edited or removed", async () => {
  const dir = await mkdtemp(join(tmpdir(), "clawhive-skills-cache-"));
  try {
    const write = async (name: string, text: string) => {
      await mkdir(join(dir, name), { recursive: true });
      await writeFile(join(dir, name, "SKILL.md"), text);
    };
    const cache = new SkillsCache(dir);
    assert.equal((await cache.load()).skills.size, 0);
    await write("notes", doc("name: notes\ndescription: first"));
    const first = await cache.load();
    assert.equal(first.skills.get("notes")?.description, "first");
    // Nothing changed: the same reading, not a new one.
    assert.equal(await cache.load(), first);
    // An edit of another length shows at once.
    await write("notes", doc("name: notes\ndescription: second, longer"));
    assert.equal((await cache.load()).skills.get("notes")?.description, "second, longer");
    // A new skill and a broken one: the broken one is a problem, not a crash.
    await write("plan", doc("name: plan\ndescription: plan it"));
    await write("broken", "no front matter\n");
    const third = await cache.load();
    assert.deepEqual([...third.skills.keys()].sort(), ["notes", "plan"]);
    assert.equal(third.problems.length, 1);
    // A removed skill is gone.
    await rm(join(dir, "plan"), { recursive: true });
    assert.deepEqual([...(await cache.load()).skills.keys()], ["notes"]);
    // The whole folder removed: no skills.
    await rm(dir, { recursive: true });
    assert.equal((await cache.load()).skills.size, 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
