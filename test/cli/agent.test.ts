import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Runtime } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { FILES_PLUGIN } from "../helpers/runtime.js";
import { writeTestSecretKey } from "../helpers/secret-key.js";

const BIN = join(PROJECT_ROOT, "bin", "clawhive.js");
const EXAMPLES = join(PROJECT_ROOT, "capabilities");

let root: string;
/** A data dir with `workspace/`, which the example manifests mount. */
let data: string;
/** A data dir without it. */
let bare: string;
let defaultText: string;
let coderText: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "clawhive-cli-agent-"));
  data = join(root, "data");
  bare = join(root, "bare");
  await mkdir(join(data, "workspace"), { recursive: true });
  await writeTestSecretKey(data);
  await mkdir(bare);
  defaultText = await readFile(join(EXAMPLES, "default.yaml"), "utf8");
  coderText = await readFile(join(EXAMPLES, "coder.yaml"), "utf8");
});
after(() => rm(root, { recursive: true, force: true }));

function clawhive(args: string[], env: Record<string, string> = {}) {
  const clean = { ...process.env };
  delete clean.CLAWHIVE_DATA_DIR;
  delete clean.CLAWHIVE_AGENTS_DIR;
  // list and show open a runtime on the store: the first one on a fresh data dir installs its plugins.
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 300_000, env: { ...clean, ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Writes `text` as `<dir>/<name>` and returns its path. */
async function manifest(name: string, text: string, dir = root): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

describe("clawhive agent validate", () => {
  it("accepts the default example when its workspace exists (control)", () => {
    const { code, stdout, stderr } = clawhive(["agent", "validate", join(EXAMPLES, "default.yaml"), "--data-dir", data]);
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `ok ${join(EXAMPLES, "default.yaml")}\n`);
  });

  it("shows an acknowledged dangerous combination as a warning, still ok", () => {
    const { code, stdout } = clawhive(["agent", "validate", join(EXAMPLES, "coder.yaml"), "--data-dir", data]);
    assert.equal(code, 0);
    assert.match(stdout, /^ok .*coder\.yaml$/m);
    assert.match(stdout, /^ {2}warning: fs-write-shell-same-mount: .* \(acknowledged\)$/m);
  });

  it("reads the data dir from CLAWHIVE_DATA_DIR", () => {
    const made = clawhive(["agent", "validate", join(EXAMPLES, "default.yaml")], { CLAWHIVE_DATA_DIR: data });
    assert.equal(made.code, 0);
    assert.doesNotMatch(made.stdout, /note:/);
    // The bare data dir has no workspace yet: the note names the folder under it.
    const fresh = clawhive(["agent", "validate", join(EXAMPLES, "default.yaml")], { CLAWHIVE_DATA_DIR: bare });
    assert.equal(fresh.code, 0);
    assert.ok(fresh.stdout.includes(`note: ${join(bare, "workspace")} does not exist yet`), fresh.stdout);
  });

  const bad: [string, string, () => string, RegExp[]][] = [
    ["an unknown field", "default.yaml", () => defaultText.replace("limits:", "limits:\n  max_rounds: 3"), [/: limits\.max_rounds: unknown key "max_rounds"; expected one of: max_tool_rounds/]],
    ["a field of the wrong type", "default.yaml", () => defaultText.replace("max_tool_rounds: 20", "max_tool_rounds: many"), [/: limits\.max_tool_rounds: expected number, got "many"/]],
    ["a missing required field", "default.yaml", () => defaultText.replace(/^description: .*$/m, ""), [/: description: required key is missing/]],
    ["invalid YAML", "default.yaml", () => "name: [default\n", [/: line \d+, column \d+: not valid YAML/]],
    [
      "an unacknowledged dangerous combination",
      "coder.yaml",
      () => coderText.replace(/^ {2}- fs-write-shell-same-mount\n/m, ""),
      [/: grants\.shell\.exec\.mounts\[0\]: dangerous combination fs-write-shell-same-mount: .*acknowledge: \[fs-write-shell-same-mount\]/],
    ],
    ["a name that is not the file name", "other.yaml", () => defaultText, [/: name: must equal the file name \(other\), got default/]],
    ["a skill not in the skills dir", "default.yaml", () => defaultText.replace("skills: [summarize-notes]", "skills: [nope]"), [/: skills\[0\]: no skill named nope \(expected skills\/nope\/SKILL\.md\)$/]],
    [
      "a sub-agent that does not exist",
      "default.yaml",
      () => defaultText.replace("skills: [summarize-notes]", "skills: [summarize-notes]\nsub_agents: [ghost]").replace("grants:\n", "grants:\n  agent.spawn: { agents: [ghost] }\n"),
      [/: sub_agents\[0\]: no agent named ghost/],
    ],
    ["a sub-agent agent.spawn does not name", "default.yaml", () => defaultText.replace("skills: [summarize-notes]", "skills: [summarize-notes]\nsub_agents: [researcher]"), [/: sub_agents\[0\]: researcher is listed but grants\.agent\.spawn\.agents does not name it/]],
    [
      "a sub-agent under limits.max_depth 0",
      "default.yaml",
      () => defaultText.replace("skills: [summarize-notes]", "skills: [summarize-notes]\nsub_agents: [researcher]").replace("grants:\n", "grants:\n  agent.spawn: { agents: [researcher] }\n").replace("max_tool_rounds: 20", "max_tool_rounds: 20\n  max_depth: 0"),
      [/: limits\.max_depth: is 0, so no sub-agent can ever start, yet sub_agents lists researcher/],
    ],
    ["the .yml extension", "default.yml", () => defaultText, [/: \(root\): agent manifests use the \.yaml extension/]],
  ];
  for (const [label, name, text, expected] of bad) {
    it(`rejects ${label}, naming the field path, exit 1`, async () => {
      const dir = await mkdtemp(join(root, "bad-"));
      const file = await manifest(name, text(), dir);
      const { code, stdout } = clawhive(["agent", "validate", file, "--data-dir", data]);
      assert.equal(code, 1, stdout);
      assert.doesNotMatch(stdout, /^ok /m);
      for (const line of expected) assert.match(stdout, new RegExp(`^${escape(file)}${line.source}`, "m"));
    });
  }

  it("with plugins installed in the data dir's store: a skill whose tool needs a capability not granted, the tool named", async () => {
    const withStore = await mkdtemp(join(root, "store-"));
    await writeTestSecretKey(withStore);
    await mkdir(join(withStore, "workspace"));
    const runtime = await Runtime.create({ dataDir: withStore, agentsDir: await mkdtemp(join(root, "agents-")), pluginDirs: [FILES_PLUGIN] });
    await runtime.close();
    const dir = await mkdtemp(join(root, "grants-"));
    // fs.read dropped: summarize-notes reads with files.list_dir and files.read_file.
    const file = await manifest("default.yaml", defaultText.replace(/ {2}fs\.read:\n {4}mounts:\n {6}- \{ guest: \/workspace, host: \.\/workspace \}\n/, ""), dir);
    const { code, stdout } = clawhive(["agent", "validate", file, "--data-dir", withStore]);
    assert.equal(code, 1, stdout);
    assert.match(stdout, new RegExp(`^${escape(file)}: skills\\[0\\]: skill summarize-notes requires tool files\\.list_dir, which needs fs\\.read, not granted to agent default$`, "m"));
    // Control: the example as shipped passes the same check.
    assert.equal(clawhive(["agent", "validate", join(EXAMPLES, "default.yaml"), "--data-dir", withStore]).code, 0);
  });

  it("a data-dir folder not made yet passes with a note (a fresh clone); a missing folder elsewhere is refused with the path of every mount", async () => {
    const file = join(EXAMPLES, "default.yaml");
    const fresh = clawhive(["agent", "validate", file, "--data-dir", bare]);
    assert.equal(fresh.code, 0, fresh.stdout);
    assert.match(fresh.stdout, new RegExp(`^  note: ${escape(join(bare, "workspace"))} does not exist yet; the runtime creates it on first start \\(or now: mkdir -p `, "m"));
    const dir = await mkdtemp(join(root, "elsewhere-"));
    const gone = join(root, "no-such-folder");
    const elsewhere = await manifest("default.yaml", defaultText.replaceAll("host: ./workspace", `host: ${gone}`), dir);
    const { code, stdout } = clawhive(["agent", "validate", elsewhere, "--data-dir", bare]);
    assert.equal(code, 1);
    assert.match(stdout, new RegExp(`^${escape(elsewhere)}: grants\\.fs\\.read\\.mounts\\[0\\]\\.host: directory does not exist: ${escape(gone)}$`, "m"));
    assert.match(stdout, /: grants\.fs\.write\.mounts\[0\]\.host: directory does not exist/);
  });

  it("--skip-host-dirs lints without the disk (control for the missing dir)", () => {
    assert.equal(clawhive(["agent", "validate", join(EXAMPLES, "default.yaml"), "--data-dir", bare, "--skip-host-dirs"]).code, 0);
  });

  it("reports every file: ok ones, bad ones and unreadable ones; exit 1 if any is bad", async () => {
    const dir = await mkdtemp(join(root, "mixed-"));
    const badFile = await manifest("default.yaml", defaultText.replace("provider: anthropic", "provider: acme"), dir);
    const missing = join(dir, "missing.yaml");
    const good = join(EXAMPLES, "default.yaml");
    const { code, stdout } = clawhive(["agent", "validate", good, badFile, missing, "--data-dir", data]);
    assert.equal(code, 1);
    assert.match(stdout, new RegExp(`^ok ${escape(good)}$`, "m"));
    assert.match(stdout, new RegExp(`^${escape(badFile)}: model\\.provider: `, "m"));
    assert.match(stdout, new RegExp(`^${escape(missing)}: \\(root\\): cannot read the file: ENOENT$`, "m"));
  });

  it("--json prints {file, ok, issues, warnings} per file", async () => {
    const dir = await mkdtemp(join(root, "json-"));
    const badFile = await manifest("default.yaml", defaultText.replace("max_tool_rounds: 20", "max_tool_rounds: 0"), dir);
    const { code, stdout } = clawhive(["agent", "validate", join(EXAMPLES, "coder.yaml"), badFile, "--data-dir", data, "--json"]);
    assert.equal(code, 1);
    const reports = JSON.parse(stdout) as { file: string; ok: boolean; issues: { path: string; message: string }[]; warnings: { id: string }[] }[];
    assert.equal(reports.length, 2);
    assert.deepEqual([reports[0]!.ok, reports[0]!.issues, reports[0]!.warnings.map((w) => w.id)], [true, [], ["fs-write-shell-same-mount", "shell-program-runner"]]);
    assert.equal(reports[1]!.file, badFile);
    assert.equal(reports[1]!.ok, false);
    assert.equal(reports[1]!.issues[0]?.path, "limits.max_tool_rounds");
  });

  it("exits 2 on bad usage", () => {
    const rows: [string[], RegExp][] = [
      [["agent", "validate"], /clawhive: no manifest given; usage: clawhive agent validate FILE/],
      [["agent"], /clawhive: usage: clawhive agent validate/],
      [["agent", "frob"], /unknown agent command 'frob'/],
      [["agent", "validate", "x.yaml", "--bogus"], /Unknown option '--bogus'/],
      [["agent", "validate", "x.yaml", "--skills", root, "--server", "http://127.0.0.1:9", "--token", "t"], /--skills and --server do not combine/],
    ];
    for (const [args, message] of rows) {
      const { code, stderr } = clawhive(args);
      assert.equal(code, 2, args.join(" "));
      assert.match(stderr, message);
    }
  });

  it("--help prints the command's help", () => {
    const { code, stdout } = clawhive(["agent", "validate", "--help"]);
    assert.equal(code, 0);
    assert.match(stdout, /clawhive agent validate FILE\.\.\./);
  });
});

describe("clawhive agent list", () => {
  let agents: string;
  before(async () => {
    agents = join(root, "agents");
    await mkdir(agents);
    await manifest("default.yaml", defaultText, agents);
    await manifest("coder.yaml", coderText, agents);
  });

  it("prints a table of the agents: name, model, plugins, capabilities, description", () => {
    const { code, stdout, stderr } = clawhive(["agent", "list", "--agents", agents, "--data-dir", data]);
    assert.equal(code, 0, stderr);
    const lines = stdout.trimEnd().split("\n");
    assert.match(lines[0]!, /^NAME\s+MODEL\s+PLUGINS\s+CAPABILITIES\s+DESCRIPTION$/);
    assert.match(lines[1]!, /^coder\s+anthropic\/claude-sonnet-4-5\s+files@\^0\.1\.0,shell@\^0\.1\.0\s+fs\.read,fs\.write,log,shell\.exec\s+Reads, edits and tests code/);
    assert.match(lines[2]!, /^default\s+anthropic\/claude-sonnet-4-5\s+files@\^0\.1\.0\s+fs\.read,fs\.write,log\s+General assistant/);
    assert.equal(lines.length, 3);
  });

  it("takes the agents dir from CLAWHIVE_AGENTS_DIR; --json prints the manifests", () => {
    const { code, stdout } = clawhive(["agent", "list", "--json"], { CLAWHIVE_AGENTS_DIR: agents, CLAWHIVE_DATA_DIR: data });
    assert.equal(code, 0);
    const list = JSON.parse(stdout) as { name: string; manifest: { grants: Record<string, unknown> }; warnings: { id: string }[] }[];
    assert.deepEqual(list.map((a) => a.name), ["coder", "default"]);
    assert.deepEqual(list[0]!.warnings.map((w) => w.id), ["fs-write-shell-same-mount", "shell-program-runner"]);
    assert.ok("shell.exec" in list[0]!.manifest.grants);
  });

  it("fails with every issue when a manifest is invalid, exit 1", async () => {
    const dir = await mkdtemp(join(root, "agents-bad-"));
    await manifest("default.yaml", defaultText, dir);
    await manifest("broken.yaml", defaultText.replace("name: default", "name: broken").replace("temperature: 0.2", "temperature: hot"), dir);
    const { code, stdout, stderr } = clawhive(["agent", "list", "--agents", dir, "--data-dir", data]);
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.match(stderr, new RegExp(`^${escape(join(dir, "broken.yaml"))}: model\\.temperature: expected number, got "hot"$`, "m"));
  });

  it("exits 2 when the agents dir does not exist", () => {
    const { code, stderr } = clawhive(["agent", "list", "--agents", join(root, "nowhere"), "--data-dir", data]);
    assert.equal(code, 2);
    assert.match(stderr, /agents dir .*nowhere does not exist: pass --agents DIR/);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
