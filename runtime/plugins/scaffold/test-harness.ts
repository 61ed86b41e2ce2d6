/**
 * The part of a scaffolded plugin's `test/plugin.test.mjs` every kind shares: build the plugin,
 * install it into a throwaway data dir, grant it to a `tester` agent, and a `call` helper that
 * runs `clawhive call` as that agent. Each kind's template appends its own tests.
 */
import type { ScaffoldValues } from "./values.js";

export interface HarnessOptions {
  /** What the tests call, for the header line: "its tool", "its typed tools". */
  what: string;
  /** The tester agent's `grants:` block, as YAML lines. */
  grants: readonly string[];
  /** How long one clawhive command may take (a first build compiles the component). */
  timeoutMs: number;
}

export function scaffoldTestHarness(v: ScaffoldValues, o: HarnessOptions): string {
  const agentLines = [
    "name: tester",
    `description: Calls the ${v.name} plugin's tools in its tests.`,
    "model: { provider: anthropic, id: none }",
    "system_prompt: Not used; tools are called directly.",
    "plugins:",
    `  - { name: ${v.name}, version: "*" }`,
    ...o.grants,
    "",
  ];
  return `// Builds this plugin, installs it into a throwaway data dir, grants it to an agent and calls
// ${o.what} through clawhive, as a person would. Run it with: node --test
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

const PLUGIN = dirname(dirname(fileURLToPath(import.meta.url)));
// The clawhive that scaffolded this plugin; set CLAWHIVE_BIN to test with another one.
const CLAWHIVE = process.env.CLAWHIVE_BIN ?? ${JSON.stringify(v.bin)};

let place;

function clawhive(...args) {
  const env = { ...process.env };
  for (const name of ["CLAWHIVE_DATA_DIR", "CLAWHIVE_STORE_URL", "CLAWHIVE_STORE_AUTH_TOKEN", "CLAWHIVE_AGENTS_DIR"]) delete env[name];
  const result = spawnSync(process.execPath, [CLAWHIVE, ...args], { encoding: "utf8", env, timeout: ${o.timeoutMs} });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** \`clawhive call\` as the test agent, on the throwaway data dir. */
function call(tool, input) {
  return clawhive("call", tool, JSON.stringify(input), "--agent", "tester", "--agents", place.agents, "--data-dir", place.data);
}

before(async () => {
  const root = await mkdtemp(join(tmpdir(), "${v.name}-test-"));
  place = { root, out: join(root, "dist"), data: join(root, "data"), agents: join(root, "agents") };
  const built = clawhive("plugin", "build", PLUGIN, "--out", place.out);
  assert.equal(built.code, 0, built.stderr);
  const installed = clawhive("plugin", "install", place.out, "--data-dir", place.data);
  assert.equal(installed.code, 0, installed.stderr);
  // An agent that may use this plugin and nothing else; its grants are what the tool may do.
  await mkdir(place.agents);
  await writeFile(join(place.agents, "tester.yaml"), ${JSON.stringify(agentLines.join("\n"))});
});

after(async () => {
  if (place) await rm(place.root, { recursive: true, force: true });
});
`;
}
