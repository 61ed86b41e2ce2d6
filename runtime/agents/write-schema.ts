/**
 * Writes `capabilities/schema.json` from the valibot schema; `--check` only compares and
 * exits 1 when the committed file is stale (for CI).
 *
 *   node dist/runtime/agents/write-schema.js [--check]
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { renderAgentManifestJsonSchema } from "./json-schema.js";

/** From `dist/runtime/agents/` (compiled) to the repo's `capabilities/`. */
export const SCHEMA_FILE = fileURLToPath(new URL("../../../capabilities/schema.json", import.meta.url));

async function main(args: readonly string[]): Promise<number> {
  const text = renderAgentManifestJsonSchema();
  if (args.includes("--check")) {
    const current = await readFile(SCHEMA_FILE, "utf8").catch(() => "");
    if (current === text) return 0;
    process.stderr.write(`${SCHEMA_FILE}: out of date; run node dist/runtime/agents/write-schema.js\n`);
    return 1;
  }
  await writeFile(SCHEMA_FILE, text);
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
