/**
 * files.grep and files.glob through the shipped CLI (bin/clawhive.js, the bundle): each is one
 * fs host operation however large the tree, that one operation is one intent and one outcome in
 * the run's audit (naming the subtree, the pattern, the counts and the files returned), and what
 * a read would refuse (symlinks out, sensitive names, hard links) is neither returned nor searched.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { link, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { tempDir } from "../helpers/runtime.js";
import { writeTestSecretKey } from "../helpers/secret-key.js";

const BIN = join(PROJECT_ROOT, "bin", "clawhive.js");
const SECRET = "OUTSIDE-SECRET-NEEDLE";
let work: string;
let outside: string;
let data: string;

before(async () => {
  work = await tempDir();
  outside = await tempDir();
  data = await tempDir("clawhive-data-");
  await writeTestSecretKey(data);
  for (let d = 0; d < 10; d++) {
    await mkdir(join(work, `dir${d}`));
    for (let f = 0; f < 20; f++) await writeFile(join(work, `dir${d}`, `file${f}.ts`), f === 7 ? "before\nconst NEEDLE = 1;\nafter\n" : "nothing here\n");
  }
  await writeFile(join(outside, "secret.txt"), SECRET);
  await symlink(join(outside, "secret.txt"), join(work, "link.ts"));
  await symlink(outside, join(work, "dirlink"));
  await link(join(outside, "secret.txt"), join(work, "hard.ts"));
  await writeFile(join(work, ".env"), SECRET);
  await mkdir(join(work, ".ssh"));
  await writeFile(join(work, ".ssh", "id_rsa"), SECRET);
});
after(async () => {
  for (const dir of [work, outside, data]) await rm(dir, { recursive: true, force: true });
});

function clawhive(...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args, "--data-dir", data], { encoding: "utf8", timeout: 300_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

interface Row {
  status: string;
  run_id: string;
  host_call: { proxy: string; function: string } | null;
  args: string | null;
}

/** The host-call records of the newest run. */
function lastRunHostCalls(): Row[] {
  const { code, stdout } = clawhive("audit", "tail", "--kind", "host_call", "--limit", "1000", "--json");
  assert.equal(code, 0);
  const rows = JSON.parse(stdout) as Row[];
  const run = rows[0]?.run_id;
  return rows.filter((r) => r.run_id === run && r.host_call?.function !== "mounts");
}

test("cli: files.grep over a tree is one search, one audit pair, and never reads what a read would refuse", () => {
  const { code, stdout, stderr } = clawhive("call", "files.grep", JSON.stringify({ pattern: "NEEDLE", context: 1 }), "--mount", `/work=${work}`);
  assert.equal(code, 0, stderr);
  const result = JSON.parse(stdout) as { matches: Array<{ file: string; line: number; before: string[] }>; files_searched: number; skipped: Record<string, number> };
  assert.equal(result.matches.length, 10);
  assert.deepEqual(result.matches[0], { file: "/work/dir0/file7.ts", line: 2, text: "const NEEDLE = 1;", before: ["before"], after: ["after"] });
  assert.ok(!stdout.includes(SECRET), "a refused file's content reached the output");
  assert.equal(result.files_searched, 200);
  assert.deepEqual([result.skipped.symlink, result.skipped.hard_link, result.skipped.sensitive], [2, 1, 2]);
  const calls = lastRunHostCalls();
  assert.deepEqual(calls.map((r) => `${r.host_call?.function} ${r.status}`).sort(), ["search intent", "search ok"]);
  const intent = JSON.parse(calls.find((r) => r.status === "intent")!.args!) as { path: string; options: { pattern: string; contextBefore: number } };
  assert.deepEqual([intent.path, intent.options.pattern, intent.options.contextBefore], ["/work", "NEEDLE", 1]);
  const outcome = JSON.parse(calls.find((r) => r.status === "ok")!.args!) as { files_scanned: number; files: string[]; skipped: Record<string, number> };
  assert.equal(outcome.files_scanned, 200);
  assert.equal(outcome.files.length, 10);
  assert.equal(outcome.skipped.hardLink, 1);
});

test("cli: files.glob is one walk, and lists no symlink, sensitive name or outside file", () => {
  const { code, stdout, stderr } = clawhive("call", "files.glob", JSON.stringify({ pattern: "**/*.ts", limit: 5000 }), "--mount", `/work=${work}`);
  assert.equal(code, 0, stderr);
  const files = (JSON.parse(stdout) as { files: string[] }).files;
  // 200 files, and the hard link (a name only: listing it reads nothing, as list_dir shows it).
  assert.equal(files.length, 201);
  assert.ok(files.includes("/work/hard.ts"));
  assert.ok(!files.some((f) => f.includes("link") || f.includes(".ssh") || f.includes(".env")));
  assert.deepEqual(lastRunHostCalls().map((r) => `${r.host_call?.function} ${r.status}`).sort(), ["walk intent", "walk ok"]);
});

test("cli: bad grep input is a clear error and a non-zero exit; control: the same call made right", () => {
  const bad = clawhive("call", "files.grep", JSON.stringify({ pattern: "(" }), "--mount", `/work=${work}`);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /is not a valid regular expression/);
  const outside = clawhive("call", "files.grep", JSON.stringify({ pattern: "x", path: "/work/../etc" }), "--mount", `/work=${work}`);
  assert.equal(outside.code, 1);
  assert.match(outside.stderr, /denied: .*leaves the mount/);
  const escaped = clawhive("call", "files.grep", JSON.stringify({ pattern: "SECRET", path: "/work/dirlink" }), "--mount", `/work=${work}`);
  assert.equal(escaped.code, 1);
  assert.match(escaped.stderr, /symbolic link/);
  assert.equal(clawhive("call", "files.grep", JSON.stringify({ pattern: "\\(" }), "--mount", `/work=${work}`).code, 0);
});
