/**
 * The command line runs from its bundle (bin/bundle-cli.js) after a build, and the bundle says
 * what the compiled files say: same help, same answers, same errors and exit codes.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readdirSync, readFileSync, rm, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";

const COMPILED = join(PROJECT_ROOT, "dist", "runtime", "cli", "main.js");
const BUNDLED = join(PROJECT_ROOT, "dist", "runtime", "cli-bundle", "main.js");

let data: string;
before(async () => {
  data = await promisify(mkdtemp)(join(tmpdir(), "clawhive-bundle-"));
  const made = run(COMPILED, ["init", data]);
  assert.equal(made.code, 0, made.stderr);
});
after(() => promisify(rm)(data, { recursive: true, force: true }));

function run(entry: string, args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, CLAWHIVE_DATA_DIR: join(data, ".clawhive") };
  for (const name of ["CLAWHIVE_SERVER", "CLAWHIVE_TOKEN", "CLAWHIVE_STORE_URL"]) delete env[name];
  const result = spawnSync(process.execPath, [entry, ...args], { encoding: "utf8", timeout: 300_000, env });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test("after a build the bundle is there and at least as new as the compiled files, so bin/clawhive.js runs it", () => {
  const bundled = statSync(BUNDLED, { throwIfNoEntry: false });
  assert.ok(bundled, "no dist/runtime/cli-bundle/main.js: run `npm run build`");
  assert.ok(bundled.mtimeMs >= statSync(COMPILED).mtimeMs, "the bundle is older than the compiled files: run `npm run build`");
});

const CASES: Array<{ args: string[]; code: number }> = [
  { args: ["--help"], code: 0 },
  { args: ["runs", "--help"], code: 0 },
  { args: ["agent", "validate", join(PROJECT_ROOT, "capabilities", "coder.yaml"), "--skip-host-dirs"], code: 0 },
  { args: ["runs", "list", "--json", "--data-dir", "STORE"], code: 0 },
  { args: ["audit", "verify", "--data-dir", "STORE"], code: 0 },
  { args: ["runs", "show", "run_missing", "--data-dir", "STORE"], code: 1 },
  { args: ["approvals", "approve"], code: 2 },
  { args: ["nosuch"], code: 2 },
];

for (const { args, code } of CASES) {
  test(`bundled and compiled agree: clawhive ${args.join(" ")} (exit ${code})`, () => {
    const resolved = args.map((a) => (a === "STORE" ? join(data, ".clawhive") : a));
    const compiled = run(COMPILED, resolved);
    const bundled = run(BUNDLED, resolved);
    assert.equal(compiled.code, code, compiled.stderr);
    assert.deepEqual(bundled, compiled);
  });
}

/** The bundle's files a chunk loads before it runs: itself and its static imports, not its `import()`s. */
function staticClosure(dir: string, entry: string): Map<string, string> {
  const loaded = new Map<string, string>();
  const visit = (file: string) => {
    if (loaded.has(file)) return;
    const text = readFileSync(join(dir, file), "utf8");
    loaded.set(file, text);
    for (const m of text.matchAll(/(?:^|[\s;}])(?:import|from)\s*["']\.\/([^"']+)["']/g)) visit(m[1]!);
  };
  visit(entry);
  return loaded;
}

test("a command through a server loads no runtime: the call command's chunks hold none of the runtime, the store or the schema compiler", () => {
  const dir = join(PROJECT_ROOT, "dist", "runtime", "cli-bundle");
  const entry = readdirSync(dir).find((f) => /^call-[\w-]+\.js$/.test(f));
  assert.ok(entry, "no call chunk in the bundle");
  const loaded = [...staticClosure(dir, entry).values()].join("\n");
  const everything = readdirSync(dir).map((f) => readFileSync(join(dir, f), "utf8")).join("\n");
  // Each marker is in the bundle (the control), loaded only by the import() of a command that opens the store.
  for (const marker of ["function openRuntime(", "function inProcessClient(", "function compileToolSchema(", 'from "libsql"']) {
    assert.ok(everything.includes(marker), `the bundle has no ${marker}: pick another marker`);
    assert.ok(!loaded.includes(marker), `the call command loads ${marker} before it runs`);
  }
  assert.ok(loaded.includes("function nodeFetch("), "the call command loads the client's carrier");
});
