import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";

const BIN = join(PROJECT_ROOT, "bin", "clawhive.js");

let root: string;
let data: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "clawhive-validate-all-"));
  data = join(root, "data");
  await mkdir(join(root, "here"), { recursive: true });
  await mkdir(data);
});
after(() => rm(root, { recursive: true, force: true }));

function validate(files: string[]) {
  const clean = { ...process.env };
  delete clean.CLAWHIVE_DATA_DIR;
  delete clean.CLAWHIVE_AGENTS_DIR;
  const result = spawnSync(process.execPath, [BIN, "agent", "validate", ...files, "--data-dir", data, "--agents", join(root, "agents"), "--json"], { encoding: "utf8", timeout: 120_000, env: clean });
  return { code: result.status, reports: JSON.parse(result.stdout || "[]") as Array<{ file: string; ok: boolean; issues: Array<{ path: string; message: string }> }>, stderr: result.stderr };
}

const head = (name: string) => `name: ${name}
description: a manifest with problems in several places
system_prompt: hi
model: { provider: openai, id: gpt-4.1, api_key_secret: k }
`;

/** Each manifest holds problems found by different checks: every one is reported, with its path. */
function cases(): Array<{ name: string; text: string; expected: RegExp[] }> {
  return [
  {
    name: "yaml",
    text: "name: yaml\nname: again\ndescription: x\ndescription: y\nmodel: [unclosed\n",
    expected: [/^line 2, column 1: .*unique/, /^line 4, column 1: .*unique/, /^line \d+, column \d+: not valid YAML: Flow sequence/],
  },
  {
    name: "checks",
    text: `${head("checks")}plugins:
  - { name: files, version: ^0.1.0 }
  - { name: files, version: ^0.1.0 }
grants:
  fs.read:
    mounts: [{ guest: /w, host: ${join(root, "missing-a")} }]
  fs.write:
    mounts: [{ guest: /w, host: ${join(root, "missing-b")} }]
sub_agents: [nobody]
skills: [no-such-skill]
`,
    expected: [
      /^plugins\[1\]\.name: plugin files is already listed/,
      /^grants\.fs\.write\.mounts\[0\]\.host: guest \/w must map to the same host directory/,
      /^grants\.fs\.read\.mounts\[0\]\.host: directory does not exist/,
      /^grants\.fs\.write\.mounts\[0\]\.host: directory does not exist/,
      /^sub_agents\[0\]: no agent named nobody/,
      /^skills\[0\]: no skill named no-such-skill/,
    ],
  },
  {
    name: "schema",
    text: "name: schema\ndescription: ''\nmodel: { provider: nope, id: 5 }\nlimits: { max_tool_rounds: -1 }\nbogus: 1\n",
    expected: [/^description: /, /^model\.provider: /, /^model\.id: /, /^system_prompt: required/, /^limits\.max_tool_rounds: /, /^bogus: unknown key/],
  },
  ];
}

test("agent validate reports every problem of a manifest, each with its file and path; control: the fixed manifest is ok", async () => {
  const CASES = cases();
  const files: string[] = [];
  for (const c of CASES) {
    const file = join(root, "here", `${c.name}.yaml`);
    await writeFile(file, c.text);
    files.push(file);
  }
  const fixed = join(root, "here", "fixed.yaml");
  await writeFile(fixed, `${head("fixed")}plugins:\n  - { name: files, version: ^0.1.0 }\ngrants:\n  fs.read:\n    mounts: [{ guest: /w, host: ${join(root, "here")} }]\n`);
  const { code, reports, stderr } = validate([...files, fixed]);
  assert.equal(code, 1, stderr);
  CASES.forEach((c, i) => {
    const report = reports[i]!;
    assert.equal(report.file, files[i]);
    assert.equal(report.ok, false);
    const lines = report.issues.map((issue) => `${issue.path}: ${issue.message}`);
    for (const expected of c.expected) assert.ok(lines.some((line) => expected.test(line)), `${c.name}: ${expected} among\n${lines.join("\n")}`);
    assert.equal(lines.length, new Set(lines).size, `${c.name}: each problem once`);
  });
  assert.deepEqual({ ok: reports[3]!.ok, issues: reports[3]!.issues }, { ok: true, issues: [] }, "control: the fixed manifest passes");
});

test("the text output names the file and the path of each problem", async () => {
  const file = join(root, "here", "checks.yaml");
  const clean = { ...process.env };
  delete clean.CLAWHIVE_DATA_DIR;
  const result = spawnSync(process.execPath, [BIN, "agent", "validate", file, "--data-dir", data, "--agents", join(root, "agents")], { encoding: "utf8", timeout: 120_000, env: clean });
  assert.equal(result.status, 1);
  const lines = result.stdout.trim().split("\n");
  assert.ok(lines.length >= 6, result.stdout);
  for (const line of lines) assert.ok(line.startsWith(`${file}: `), line);
});
