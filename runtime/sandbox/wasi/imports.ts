/**
 * The WASI 0.2 imports of one instance, by interface name as jco's glue asks for them
 * (unversioned, e.g. `wasi:cli/stdout`). Each family is built on its first use, so an instance
 * of a plugin that imports no WASI builds none of it.
 */
import { cliImports } from "./cli.js";
import type { WasiInstanceContext } from "./context.js";
import { filesystemImports } from "./filesystem.js";
import { httpImports } from "./http.js";
import { socketsImports } from "./sockets.js";
import { ioImports } from "./streams.js";

/** The WASI interfaces this runtime serves (unversioned); the install check allows no others. */
export const WASI_FAMILIES: Readonly<Record<string, (context: WasiInstanceContext) => Record<string, Record<string, unknown>>>> = {
  io: () => ioImports(),
  cli: cliImports,
  clocks: cliImports,
  random: cliImports,
  config: cliImports,
  filesystem: filesystemImports,
  http: httpImports,
  sockets: socketsImports,
};

/** `wasi:<family>/<iface>` → its functions and resources for this instance; undefined when not served. */
export function wasiInterfaces(context: WasiInstanceContext): (name: string) => Record<string, unknown> | undefined {
  const built = new Map<string, Record<string, Record<string, unknown>>>();
  return (name) => {
    const match = /^wasi:([a-z-]+)\/[a-z-]+$/.exec(name);
    if (!match) return undefined;
    const family = match[1]!;
    const make = Object.hasOwn(WASI_FAMILIES, family) ? WASI_FAMILIES[family]! : undefined;
    if (!make) return undefined;
    // cli, clocks, random and config share one builder: build it once for all four.
    const key = make === cliImports ? "cli" : family;
    let interfaces = built.get(key);
    if (!interfaces) {
      interfaces = make(context);
      built.set(key, interfaces);
    }
    return Object.hasOwn(interfaces, name) ? interfaces[name] : undefined;
  };
}
