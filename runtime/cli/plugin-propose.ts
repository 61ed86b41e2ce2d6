import { open, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { InvalidInputError } from "../errors.js";
import { MAX_WASM_BYTES } from "../plugins/install/index.js";
import { proposeManifest } from "../plugins/install/propose.js";
import { scratchDescriber } from "../plugins/install/propose-describe.js";
import { inert } from "./render.js";

/** How `plugin install` goes on with a bare component: the manifest written for it, or an exit code. */
export type BareWasmOutcome = { manifestFile?: string } | { exit: number };

/**
 * A local `.wasm` with no plugin.json beside it and no --manifest: a manifest is proposed from
 * its imports and exports (a component's or an Extism module's; tools only `describe` can list
 * are read in a sandbox of its own) and shown; a person accepts it (a `y` in a terminal, or
 * --yes), and it is written as plugin.json beside the binary (the install then reads it like any
 * other). A binary install would refuse gets no proposal: the error says why and nothing is
 * written. Without a terminal and without --yes nothing is installed (exit 3) and the message
 * says how.
 */
export async function manifestForBareWasm(source: string, options: { manifestGiven: boolean; yes: boolean }): Promise<BareWasmOutcome> {
  if (options.manifestGiven || /^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return {};
  const path = resolve(source);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile() || !(await isWasm(path))) return {};
  const manifestFile = join(dirname(path), "plugin.json");
  if (await stat(manifestFile).then(() => true, () => false)) return {};
  if (info.size > MAX_WASM_BYTES) throw new InvalidInputError(`${source}: ${info.size} bytes, more than the ${MAX_WASM_BYTES} a plugin file may have`, { field: "source" });
  const scratch = scratchDescriber();
  let proposal;
  try {
    proposal = await proposeManifest(new Uint8Array(await readFile(path)), path, { describe: scratch.describe });
  } finally {
    await scratch.close();
  }
  console.error(`${inert(source)} came without a plugin.json; proposed from its imports and exports:`);
  for (const line of proposal.lines) console.error(`  ${inert(line)}`);
  if (!options.yes) {
    if (!process.stdin.isTTY || !process.stderr.isTTY) {
      console.error(`not installed: re-run with --yes to accept this manifest (it is written to ${inert(manifestFile)}), or write a plugin.json and pass --manifest FILE`);
      return { exit: 3 };
    }
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await prompt.question("Install with this manifest? [y/N] ");
    prompt.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      console.error("not installed");
      return { exit: 3 };
    }
  }
  await writeFile(manifestFile, `${JSON.stringify(proposal.manifest, null, 2)}\n`, { flag: "wx" });
  console.error(`wrote ${inert(manifestFile)}`);
  return { manifestFile };
}

async function isWasm(path: string): Promise<boolean> {
  const file = await open(path, "r");
  try {
    const head = Buffer.alloc(4);
    await file.read(head, 0, 4, 0);
    return head.equals(Buffer.from([0x00, 0x61, 0x73, 0x6d]));
  } finally {
    await file.close();
  }
}
