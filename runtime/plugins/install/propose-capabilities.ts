/**
 * The capabilities a bare binary's code can use, read from its real imports, for a proposed
 * manifest: only what a function it takes from an import needs (a component's lowered
 * functions, an Extism module's imported functions), so a plugin that reads files is not
 * proposed writes, and one importing `wasi:filesystem/types` or `wasi:http/types` only for its
 * types, or `wasi:sockets` (refused at call time), is proposed nothing for them. What the
 * install rule needs for an import (one of its capabilities) is always met, so the proposal
 * installs as written; what cannot be known (which file a preview1 `fd_write` targets) is said.
 */
import { capabilitiesForImport } from "../imports.js";
import { EXTISM_KERNEL, EXTISM_USER, extismHostFunction, KERNEL_CHANNELS, KERNEL_LOG } from "../extism-abi.js";
import { PREVIEW1_FILES } from "../../sandbox/wasi/preview1.js";

export interface ProposedCapabilities {
  capabilities: Set<string>;
  /** Imports no capability can make legitimate: the install would refuse them. */
  refused: string[];
  /** What a person should know about the proposal (a capability that could not be told). */
  notes: string[];
}

/** Host functions that need another capability than their interface's first one, by WIT name. */
const FUNCTION_CAPABILITY: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  fs: { mounts: "fs.read", read: "fs.read", "list-dir": "fs.read", stat: "fs.read", write: "fs.write", remove: "fs.write", mkdir: "fs.write" },
  calendar: { "list-calendars": "calendar.read", "list-events": "calendar.read", "add-event": "calendar.add" },
};

/** `wasi:filesystem/types` functions that change files: a component taking one may write. */
const WASI_FS_WRITES = new Set(
  ["write", "write-via-stream", "append-via-stream", "set-size", "set-times", "set-times-at", "create-directory-at", "remove-directory-at", "unlink-file-at", "rename-at", "symlink-at", "link-at"].map((m) => `[method]descriptor.${m}`),
);

/** preview1 functions that change files (fd_write is stdout's too, so it tells nothing). */
const PREVIEW1_FILE_WRITES = new Set(["path_create_directory", "path_remove_directory", "path_unlink_file", "fd_filestat_set_size"]);

/**
 * A component's: `imports` are its import names (type-only ones left out), `used` what it takes
 * from each (typed/component-types.ts `importedFunctions`).
 */
export function componentCapabilities(imports: readonly string[], used: ReadonlyMap<string, ReadonlySet<string> | "all">): ProposedCapabilities {
  const out: ProposedCapabilities = { capabilities: new Set(), refused: [], notes: [] };
  const takes = (name: string, fn: string) => {
    const u = used.get(name);
    return u === "all" || u === undefined || u.has(fn);
  };
  const fsTypes = imports.find((n) => n.startsWith("wasi:filesystem/types@"));
  for (const name of imports) {
    const needs = capabilitiesForImport(name);
    if (needs === undefined) {
      out.refused.push(name);
      continue;
    }
    if (needs.length === 0) continue;
    const chosen = new Set<string>();
    const host = /^clawhive:host\/([a-z-]+)@/.exec(name)?.[1];
    const table = host !== undefined && Object.hasOwn(FUNCTION_CAPABILITY, host) ? FUNCTION_CAPABILITY[host]! : undefined;
    if (table) {
      for (const [fn, capability] of Object.entries(table)) if (takes(name, fn)) chosen.add(capability);
    } else if (name.startsWith("wasi:filesystem/preopens@")) {
      // The preopens are the only way to a file; what the descriptors are then asked tells writes.
      chosen.add("fs.read");
      const typesUsed = fsTypes === undefined ? undefined : used.get(fsTypes);
      if (typesUsed === "all" || (typesUsed !== undefined && [...typesUsed].some((fn) => WASI_FS_WRITES.has(fn)))) chosen.add("fs.write");
    } else {
      chosen.add(needs[0]!);
    }
    // The install rule asks one of the interface's capabilities of every import it needs any for.
    if (chosen.size === 0) chosen.add(needs[0]!);
    for (const c of chosen) out.capabilities.add(c);
  }
  return out;
}

/** An Extism module's, from its imports (`WebAssembly.Module.imports`). */
export function extismCapabilities(imports: readonly WebAssembly.ModuleImportDescriptor[]): ProposedCapabilities {
  const out: ProposedCapabilities = { capabilities: new Set(), refused: [], notes: [] };
  const names = new Set(imports.filter((i) => i.module === "wasi_snapshot_preview1").map((i) => i.name));
  for (const { module, name } of imports) {
    if (module === EXTISM_KERNEL) {
      if (Object.hasOwn(KERNEL_CHANNELS, name)) for (const c of KERNEL_CHANNELS[name]!.slice(0, 1)) out.capabilities.add(c);
      else if (Object.hasOwn(KERNEL_LOG, name)) out.capabilities.add("log");
    } else if (module === EXTISM_USER) {
      const host = extismHostFunction(name);
      const needs = host ? capabilitiesForImport(`clawhive:host/${host.iface}@0.1.0`) : undefined;
      if (!host || !needs) continue;
      const table = Object.hasOwn(FUNCTION_CAPABILITY, host.iface) ? FUNCTION_CAPABILITY[host.iface]! : undefined;
      const capability = table?.[host.wit] ?? needs[0];
      if (capability) out.capabilities.add(capability);
    } else if (module === "wasi_snapshot_preview1") {
      if (PREVIEW1_FILES.has(name)) out.capabilities.add("fs.read");
      if (PREVIEW1_FILE_WRITES.has(name)) out.capabilities.add("fs.write");
    }
  }
  if (names.has("path_open") && names.has("fd_write") && !out.capabilities.has("fs.write")) {
    out.notes.push("fs.write not proposed: the module opens files (path_open) and writes to descriptors (fd_write), which may be only its stdout; add fs.write if it writes the files it opens");
  }
  return out;
}
