/**
 * What a command loads before it knows what it will do. A command module's static imports are
 * compiled and run in every process that starts it, for `--help`, a usage error or a call to a
 * server alike; a command that reads the store alone (runs, approvals, audit) answers through the
 * store's few routes. Neither may pull in the runtime (sandbox, plugin install, agents, the JSON
 * Schema validator, YAML): through a barrel file or one convenience import that was most of a
 * short command's CPU. The runtime is imported where a command opens it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";

interface Metafile {
  inputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }> }>;
}

/** Every file `entry` reaches through static imports, with the chain that reached it. */
async function staticClosure(entry: string): Promise<Map<string, string | null>> {
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: PROJECT_ROOT,
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "node",
    splitting: true,
    outdir: join(PROJECT_ROOT, "dist", "weight-check"),
    packages: "bundle",
    external: ["libsql", "@libsql/*", "@bytecodealliance/*", "@extism/*", "esbuild", "typescript", "componentize-qjs", "pino-pretty"],
    logLevel: "silent",
  });
  const inputs = (result.metafile as Metafile).inputs;
  const parent = new Map<string, string | null>([[entry, null]]);
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const imported of inputs[file]?.imports ?? []) {
      if (imported.kind !== "import-statement" || imported.external || parent.has(imported.path)) continue;
      parent.set(imported.path, file);
      queue.push(imported.path);
    }
  }
  return parent;
}

function chain(parent: Map<string, string | null>, file: string): string {
  const files: string[] = [];
  for (let at: string | null | undefined = file; at; at = parent.get(at)) files.push(at);
  return files.reverse().join(" -> ");
}

/** Loaded only once a command opens a runtime (or validates a schema, parses a manifest). */
const HEAVY = [
  "dist/runtime/runtime.js",
  "dist/runtime/sandbox/",
  "dist/runtime/plugins/install/",
  "dist/runtime/runs/executor.js",
  "dist/runtime/api/app.js",
  "node_modules/ajv/",
  "node_modules/yaml/",
  "node_modules/prom-client/",
];

const ENTRIES = [
  // Command modules: what `clawhive CMD --help`, a usage error and a call to a server load.
  "dist/runtime/cli/runs.js",
  "dist/runtime/cli/approvals.js",
  "dist/runtime/cli/audit.js",
  "dist/runtime/cli/run.js",
  "dist/runtime/cli/tools.js",
  "dist/runtime/cli/token.js",
  "dist/runtime/cli/resume.js",
  // The client a store-only command answers through.
  "dist/runtime/client/store-reader.js",
];

for (const entry of ENTRIES) {
  test(`${entry} loads none of the runtime through its static imports`, async () => {
    const closure = await staticClosure(entry);
    assert.ok(closure.size > 5, `the check sees ${entry}'s imports (${closure.size} files): build first`);
    const heavy = [...closure.keys()].filter((file) => HEAVY.some((prefix) => file.startsWith(prefix)));
    assert.deepEqual(heavy.map((file) => chain(closure, file)), []);
  });
}

test("control: the runtime's own module does reach what the check looks for", async () => {
  const closure = await staticClosure("dist/runtime/runtime.js");
  for (const prefix of ["dist/runtime/sandbox/", "node_modules/ajv/", "node_modules/yaml/"]) {
    assert.ok([...closure.keys()].some((file) => file.startsWith(prefix)), prefix);
  }
});
