import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { tempDir } from "../helpers/runtime.js";
import { writeTestSecretKey } from "../helpers/secret-key.js";

const BIN = join(PROJECT_ROOT, "bin", "clawhive.js");
let work: string;
let data: string;

before(async () => {
  work = await tempDir();
  data = await tempDir("clawhive-data-");
  // The suite's key: the sealed compiled plugin builds are trusted here, not compiled again.
  await writeTestSecretKey(data);
  await writeFile(join(work, "hello.txt"), "hello from the mount\n");
});
after(async () => {
  await rm(work, { recursive: true, force: true });
  await rm(data, { recursive: true, force: true });
});

function clawhive(...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args, ...(args[0] === "call" || args[0] === "tools" ? ["--data-dir", data] : [])], {
    encoding: "utf8",
    timeout: 300_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test("clawhive --help lists the commands", () => {
  const { code, stdout } = clawhive("--help");
  assert.equal(code, 0);
  for (const command of ["serve", "tools", "call"]) assert.match(stdout, new RegExp(`\\b${command}\\b`));
});

test("clawhive call reads a file through the files plugin", () => {
  const { code, stdout } = clawhive("call", "files.read_file", '{"path":"/work/hello.txt"}', "--mount", `/work=${work}`);
  assert.equal(code, 0);
  assert.equal(JSON.parse(stdout).content, "hello from the mount\n");
});

test("a call's runtime remembers its passing bwrap probe in the data dir, and the next call still reads", { skip: process.env.CLAWHIVE_REQUIRE_SANDBOX !== "1" && "bwrap not required here" }, async () => {
  clawhive("call", "files.read_file", '{"path":"/work/hello.txt"}', "--mount", `/work=${work}`);
  const kept = JSON.parse(await readFile(join(data, "bwrap-probe.json"), "utf8")) as { key: string; system: string[] };
  assert.match(kept.key, /"\/usr\/bin\/bwrap"/);
  assert.ok(kept.system.includes("/usr"));
  const { code, stdout } = clawhive("call", "files.read_file", '{"path":"/work/hello.txt"}', "--mount", `/work=${work}`);
  assert.equal(code, 0);
  assert.equal(JSON.parse(stdout).content, "hello from the mount\n");
});

test("clawhive call exits 1 on a denied tool call, with the reason", () => {
  const { code, stderr } = clawhive("call", "files.read_file", '{"path":"/etc/passwd"}', "--mount", `/work=${work}`);
  assert.equal(code, 1);
  assert.match(stderr, /denied: .*outside every mount/);
});

test("a write denied by a read-only mount says how to mount it writable; control: the same write on :rw is not denied", () => {
  const input = '{"path":"/work/out.txt","content":"written"}';
  const denied = clawhive("call", "files.write_file", input, "--mount", `/work=${work}`);
  assert.equal(denied.code, 1);
  assert.match(denied.stderr, /mounts \(\/work\) are read-only/);
  assert.match(denied.stderr, /--mount \/work=DIR:rw/, "the flag that mounts it writable");
  assert.match(denied.stderr, /grants\.fs\.write\.mounts/, "and the manifest's way");
  const allowed = clawhive("call", "files.write_file", input, "--mount", `/work=${work}:rw`);
  // Not denied: the write is Guarded, so it waits for a person (exit 3) instead.
  assert.equal(allowed.code, 3, allowed.stderr);
  assert.match(allowed.stderr, /waiting for approval/);
});

test("bad usage exits 2 with a clear message", () => {
  const rows: Array<[string[], RegExp]> = [
    [["call", "files.read_file", "{not json"], /JSON-INPUT: not valid JSON/],
    [["call", "files.read_file", "{}", "--mount", "work"], /--mount work: expected GUEST=HOST/],
    [["call", "files.read_file", "{}", "--bogus"], /Unknown option '--bogus'/],
    [["frobnicate"], /unknown command 'frobnicate'/],
  ];
  for (const [args, message] of rows) {
    const { code, stderr } = clawhive(...args);
    assert.equal(code, 2, args.join(" "));
    assert.match(stderr, message);
  }
});
