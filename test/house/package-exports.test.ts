/**
 * clawhive used as a library: a project that depends on it imports it by name (package.json
 * `exports`), gets its type declarations, and runs it. The project lives in a temp folder with
 * `node_modules/clawhive` linked to this checkout, as an npm install of it would lay it out.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { tempDataDir, tempDir } from "../helpers/runtime.js";

const run = promisify(execFile);
const TSC = join(PROJECT_ROOT, "node_modules", "typescript", "bin", "tsc");

const HOST_USE = `import { Runtime, ClawhiveError, type ToolInfo, type RuntimeOptions } from "clawhive";
const options: RuntimeOptions = { dataDir: process.argv[2]!, buildCacheDir: process.argv[3]!, agentsDir: process.argv[4]! };
const runtime: Runtime = await Runtime.create(options);
try {
  const tools: readonly ToolInfo[] = runtime.tools();
  const risks: Array<"safe" | "guarded" | "unsafe"> = tools.map((t) => t.risk);
  console.log(JSON.stringify({ tools: tools.map((t) => t.qualifiedName).sort(), risks: risks.length, error: new ClawhiveError("x", "y").code }));
} finally {
  await runtime.close();
}
`;

const PLUGIN_USE = `import { defineTool, definePlugin, fail } from "clawhive/sdk";
import { read } from "clawhive:host/fs@0.1.1";
export const tools = definePlugin({
  tools: {
    size: defineTool({
      description: "Bytes in a file.",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
      capabilities: ["fs.read"],
      risk: "safe",
      run({ path }) {
        if (path === "") throw fail.invalidInput("path: empty");
        return { bytes: read(path).length };
      },
    }),
  },
});
`;

async function consumer(files: Record<string, string>, tsconfig: object): Promise<string> {
  const dir = await tempDir("clawhive-consumer-");
  await mkdir(join(dir, "node_modules"), { recursive: true });
  await symlink(PROJECT_ROOT, join(dir, "node_modules", "clawhive"), "dir");
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "consumer", type: "module", private: true }));
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const HOST_TSCONFIG = {
  compilerOptions: {
    target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: false, outDir: "out",
    skipLibCheck: true, types: ["node"], typeRoots: [join(PROJECT_ROOT, "node_modules", "@types")],
  },
  files: ["use.ts"],
};

async function typeCheck(dir: string): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [TSC, "-p", join(dir, "tsconfig.json")], { cwd: dir });
    return { ok: true, output: stdout };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return { ok: false, output: `${err.stdout ?? ""}${err.stderr ?? ""}` };
  }
}

test("a project imports clawhive by name, type-checks a strict use, and runs it", async () => {
  const dir = await consumer({ "use.ts": HOST_USE }, HOST_TSCONFIG);
  const checked = await typeCheck(dir);
  assert.ok(checked.ok, checked.output);
  const data = await tempDataDir("clawhive-consumer-data-");
  const agents = await tempDir("clawhive-consumer-agents-");
  const { stdout } = await run(process.execPath, [join(dir, "out", "use.js"), data, defaultBuildCacheDir(), agents], { cwd: dir });
  const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as { tools: string[]; risks: number; error: string };
  assert.ok(result.tools.includes("files.read_file"), stdout);
  assert.equal(result.risks, result.tools.length);
  assert.equal(result.error, "x");
});

const CLIENT_USE = `import { Runtime, inProcessClient } from "clawhive";
import { httpClient, type ClawhiveClient, type ToolView } from "clawhive/client";
const runtime = await Runtime.create({ dataDir: process.argv[2]!, buildCacheDir: process.argv[3]!, agentsDir: process.argv[4]! });
const client: ClawhiveClient = inProcessClient(runtime, { ownsRuntime: true });
const remote: ClawhiveClient = httpClient({ url: "http://127.0.0.1:1", token: "chv_example" });
try {
  const tools: ToolView[] = await client.listTools();
  console.log(JSON.stringify({ target: client.target, remote: remote.target, tools: tools.map((t) => t.name).sort() }));
} finally {
  await client.close();
}
`;

test("a project imports the client by name (clawhive/client), type-checks a use and lists tools in process", async () => {
  const dir = await consumer({ "use.ts": CLIENT_USE }, HOST_TSCONFIG);
  const checked = await typeCheck(dir);
  assert.ok(checked.ok, checked.output);
  const data = await tempDataDir("clawhive-consumer-data-");
  const agents = await tempDir("clawhive-consumer-agents-");
  const { stdout } = await run(process.execPath, [join(dir, "out", "use.js"), data, defaultBuildCacheDir(), agents], { cwd: dir });
  const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as { target: string; remote: string; tools: string[] };
  assert.equal(result.target, "in-process");
  assert.equal(result.remote, "http://127.0.0.1:1");
  assert.ok(result.tools.includes("files.read_file"), stdout);
  // Control: a wrong use of the client's types fails the check.
  const bad = await consumer({ "use.ts": CLIENT_USE.replace("await client.listTools()", "await client.listTools({ agent: 7 })") }, HOST_TSCONFIG);
  const badCheck = await typeCheck(bad);
  assert.equal(badCheck.ok, false);
  assert.match(badCheck.output, /use\.ts.*number.*string/);
});

test("control: a wrong use of the public types fails the type check, naming the mistake", async () => {
  const wrong = HOST_USE.replace("dataDir: process.argv[2]!", "dataDir: 42");
  const dir = await consumer({ "use.ts": wrong }, HOST_TSCONFIG);
  const checked = await typeCheck(dir);
  assert.equal(checked.ok, false);
  assert.match(checked.output, /use\.ts.*number.*string/);
});

test("control: a deep import past `exports` is refused", async () => {
  const dir = await consumer({ "use.ts": `import { Runtime } from "clawhive/dist/runtime/runtime.js";\nconsole.log(Runtime);\n` }, HOST_TSCONFIG);
  const checked = await typeCheck(dir);
  assert.equal(checked.ok, false);
  assert.match(checked.output, /clawhive\/dist\/runtime\/runtime\.js/);
});

test("a plugin project imports the SDK by name and type-checks against the generated host bindings", async () => {
  const tsconfig = {
    compilerOptions: { target: "ES2022", module: "ESNext", moduleResolution: "Bundler", lib: ["ES2022"], types: [], strict: true, noEmit: true, skipLibCheck: true },
    files: ["node_modules/clawhive/plugins/sdk/host.d.ts", "node_modules/clawhive/plugins/sdk/guest.d.ts", "use.ts"],
  };
  const dir = await consumer({ "use.ts": PLUGIN_USE }, tsconfig);
  const checked = await typeCheck(dir);
  assert.ok(checked.ok, checked.output);
  const bad = await consumer({ "use.ts": PLUGIN_USE.replace("read(path).length", "read(path, 1).length") }, tsconfig);
  const badCheck = await typeCheck(bad);
  assert.equal(badCheck.ok, false, "calling a host function with the wrong arity fails");
  assert.match(badCheck.output, /Expected 1 arguments?, but got 2/);
});
