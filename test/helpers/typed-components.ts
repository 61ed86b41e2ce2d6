import { componentEmbed, componentNew } from "@bytecodealliance/jco";
import { sha256 } from "../../runtime/plugins/artifact.js";

/**
 * A component whose world is `world` (WIT source; may nest other packages) with wasm-tools'
 * dummy code (every export traps): real binaries for the type reader and install checks,
 * made in milliseconds instead of componentizing.
 */
export async function typedDummy(wit: string, world = "root"): Promise<{ bytes: Uint8Array; sha256: string }> {
  const core = await componentEmbed({ dummy: true, witSource: wit, world } as Parameters<typeof componentEmbed>[0]);
  const bytes = new Uint8Array(await componentNew(core, []));
  return { bytes, sha256: sha256(bytes) };
}

/** A world of one package exporting `items` (WIT world items, e.g. `export f: func();`). */
export function worldOf(items: string, prelude = ""): string {
  return `package test:typed;\n${prelude}\nworld root {\n${items}\n}\n`;
}
