/**
 * The plugin SDK's guest bindings (`plugins/sdk/host.d.ts`), generated from `wit/` so the WIT is
 * written once: jco derives the TypeScript a componentize-js guest sees for the tool-plugin world,
 * whose imports are every `clawhive:host` interface. `npm run gen:sdk` writes the file; a test
 * fails when the checked-in file is not what the WIT generates.
 */
import { copyFile, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "./locations.js";

export const HOST_DTS_PATH = join(PROJECT_ROOT, "plugins", "sdk", "host.d.ts");

const HEADER = `/**
 * What a plugin imports from the host: \`wit/host/*.wit\` (package \`clawhive:host@0.1.1\`) as
 * componentize-js lifts it into the guest. GENERATED from wit/ by \`npm run gen:sdk\`: edit the
 * WIT (its \`///\` comments become the docs here), never this file; a test fails when it is stale.
 * Naming follows jco: functions and record fields in camelCase, enums as string unions,
 * \`list<u8>\` as \`Uint8Array\`, \`u64\` as \`bigint\`, \`option<T>\` fields optional.
 *
 * A failed host call does not return its \`host-error\`: it throws a \`ComponentError\` whose
 * \`payload\` is the variant. Use \`hostError(e)\` from the SDK to read it.
 */
`;

/** The text host.d.ts must have for the WIT in `witDir` (default: the project's `wit/`). */
export async function generateHostDts(witDir = join(PROJECT_ROOT, "wit")): Promise<string> {
  // jco reads a world's dependencies from `deps/`; lay the two WIT packages out that way.
  const dir = await mkdtemp(join(tmpdir(), "clawhive-guest-types-"));
  try {
    await mkdir(join(dir, "deps", "host"), { recursive: true });
    for (const name of await readdir(join(witDir, "plugin"))) await copyFile(join(witDir, "plugin", name), join(dir, name));
    for (const name of await readdir(join(witDir, "host"))) await copyFile(join(witDir, "host", name), join(dir, "deps", "host", name));
    const files = await guestTypes(dir);
    const interfaces = Object.keys(files)
      .filter((name) => name.startsWith("interfaces/clawhive-host-"))
      .sort()
      .map((name) => Buffer.from(files[name]!).toString("utf8").replace(/^\/\/\/ <reference[^\n]*\n/gm, "").trimEnd());
    if (interfaces.length === 0) throw new Error(`jco generated no clawhive:host interfaces from ${witDir}`);
    return `${HEADER}\n${interfaces.join("\n\n")}\n`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function guestTypes(dir: string): Promise<Record<string, Uint8Array>> {
  // jco runs as a component on the WASI shim, which opens no directory unless given one; its
  // instance keeps the first preopens it sees, so open the temp root every layout lives under.
  const { _setPreopens } = (await import("@bytecodealliance/preview2-shim/filesystem")) as unknown as {
    _setPreopens(preopens: Record<string, string>): void;
  };
  _setPreopens({ [tmpdir()]: tmpdir() });
  const { generateGuestTypes } = await import("@bytecodealliance/jco-transpile");
  return (await generateGuestTypes(dir, { worldName: "tool-plugin", guest: true })) as Record<string, Uint8Array>;
}
