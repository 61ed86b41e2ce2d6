/**
 * plugins/sdk/host.d.ts is what plugin authors compile against; wit/host is what their components
 * are linked against. The first is written by hand, so this test has jco derive the guest types
 * from the WIT (world clawhive:plugin/tool-plugin, which imports every host proxy) and compares
 * them with host.d.ts declaration by declaration: a WIT change that host.d.ts does not follow,
 * or a declaration host.d.ts invents, fails here.
 */
import assert from "node:assert/strict";
import { copyFile, mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { _setPreopens } from "@bytecodealliance/preview2-shim/filesystem";
import { types as jcoTypes } from "@bytecodealliance/jco";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { tempDir } from "../../helpers/runtime.js";
import { declarationsOf, describeDifferences } from "./dts-declarations.js";

const WIT = join(PROJECT_ROOT, "wit");

/** jco's guest types for the tool-plugin world: file name → text. */
async function generatedGuestTypes(): Promise<Record<string, string>> {
  const dir = await tempDir("clawhive-host-types-");
  await mkdir(join(dir, "deps", "host"), { recursive: true });
  for (const name of await readdir(join(WIT, "plugin"))) await copyFile(join(WIT, "plugin", name), join(dir, name));
  for (const name of await readdir(join(WIT, "host"))) await copyFile(join(WIT, "host", name), join(dir, "deps", "host", name));
  // The WASI shim jco runs on opens no directory unless told (see DESIGN's pitfalls).
  (_setPreopens as unknown as (preopens: Record<string, string>) => void)({ [dir]: dir });
  const files = (await jcoTypes(dir, { guest: true, worldName: "tool-plugin" })) as Record<string, Uint8Array>;
  return Object.fromEntries(Object.entries(files).map(([name, bytes]) => [name, Buffer.from(bytes).toString("utf8")]));
}

test("the tool-plugin world imports every interface of wit/host", async () => {
  const interfaces: string[] = [];
  for (const name of await readdir(join(WIT, "host"))) {
    for (const match of (await readFile(join(WIT, "host", name), "utf8")).matchAll(/^interface ([a-z][a-z0-9-]*) \{/gm)) interfaces.push(match[1]!);
  }
  const world = /world tool-plugin \{([\s\S]*?)\n\}/.exec(await readFile(join(WIT, "plugin", "tools.wit"), "utf8"))?.[1] ?? "";
  const imported = [...world.matchAll(/import clawhive:host\/([a-z][a-z0-9-]*)@/g)].map((m) => m[1]!);
  // `types` holds the shared error variant: imported through the interfaces that use it.
  assert.deepEqual(imported.sort(), interfaces.filter((i) => i !== "types").sort());
});

test("plugins/sdk/host.d.ts declares exactly what jco derives from wit/host", async () => {
  const generated = await generatedGuestTypes();
  const fromWit = declarationsOf(
    Object.entries(generated)
      .filter(([name]) => name.startsWith("interfaces/clawhive-host-"))
      .map(([, text]) => text)
      .join("\n"),
  );
  const byHand = declarationsOf(await readFile(join(PROJECT_ROOT, "plugins", "sdk", "host.d.ts"), "utf8"));
  assert.ok(fromWit.size >= 9, `jco produced the host interfaces (got ${[...fromWit.keys()].join(", ")})`);
  const differences = describeDifferences(fromWit, byHand);
  assert.deepEqual(differences, [], `host.d.ts differs from the WIT:\n${differences.join("\n")}`);
});

test("declarationsOf: a changed field, parameter or return type is a difference", () => {
  const base = `declare module 'clawhive:host/x@0.1.0' {
  export function read(path: string): Array<Entry>;
  export interface Entry { name: string, size: bigint, note?: string, }
  export type Kind = 'a' | 'b';
}`;
  const same = `declare module "clawhive:host/x@0.1.0" {
  /** Docs do not count; nor do quotes, separators or Array<T> against T[]. */
  export type Kind = "a" | "b";
  export interface Entry {
    size: bigint;
    name: string;
    note?: string;
  }
  export function read(path: string): Entry[];
}`;
  assert.deepEqual(describeDifferences(declarationsOf(base), declarationsOf(same)), []);
  const changed = same.replace("size: bigint;", "size: number;").replace("read(path: string)", "read(file: string)").replace(`"a" | "b"`, `"a"`);
  assert.deepEqual(describeDifferences(declarationsOf(base), declarationsOf(changed)), [
    'clawhive:host/x@0.1.0 Entry: WIT has interface {name: string; note?: string; size: bigint}, host.d.ts has interface {name: string; note?: string; size: number}',
    'clawhive:host/x@0.1.0 Kind: WIT has type "a"|"b", host.d.ts has type "a"',
    "clawhive:host/x@0.1.0 read: WIT has function (path: string) => Entry[], host.d.ts has function (file: string) => Entry[]",
  ]);
  const missing = same.replace(/export function read[^;]*;/, "export function extra(): void;");
  assert.deepEqual(describeDifferences(declarationsOf(base), declarationsOf(missing)), [
    "clawhive:host/x@0.1.0 extra: host.d.ts declares it, the WIT does not",
    "clawhive:host/x@0.1.0 read: missing from host.d.ts (WIT has function (path: string) => Entry[])",
  ]);
});
