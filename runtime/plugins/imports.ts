import { componentWit } from "@bytecodealliance/jco";
import { PluginError } from "../errors.js";
import { readVerifiedBlob, type PluginArtifact } from "./artifact.js";

/** The host package version this runtime serves. */
export const HOST_VERSION = "0.1.0";

/** The capabilities that make each `clawhive:host` interface legitimate to import. */
const INTERFACE_CAPABILITIES: Readonly<Record<string, readonly string[]>> = {
  types: [],
  fs: ["fs.read", "fs.write"],
  log: ["log"],
  shell: ["shell.exec"],
  http: ["http.fetch"],
  gmail: ["gmail.read"],
  calendar: ["calendar.read", "calendar.add"],
  kv: ["kv"],
};

/**
 * WASI interfaces DESIGN allows a plugin (clocks, random, stdout/stderr and their io streams).
 * Plugins are built with no WASI features and this runtime provides none of them yet, so they
 * are refused too, with a message saying so; everything else (filesystem, sockets, http,
 * environment, exit) is refused as outside the contract.
 */
const WASI_SUBSET = /^wasi:(clocks\/(wall-clock|monotonic-clock)|random\/(random|insecure|insecure-seed)|cli\/(stdout|stderr)|io\/(streams|error|poll))@/;

/** The imports of a component's world, exactly as named in the binary (with versions). */
export function importsOfWit(wit: string): string[] {
  const imports: string[] = [];
  let depth = 0;
  let inRoot = false;
  for (const line of wit.split("\n")) {
    const trimmed = line.trim();
    if (depth === 0 && /^world\s+root\s*\{/.test(trimmed)) inRoot = true;
    if (inRoot && depth === 1) {
      // `import pkg:ns/iface@1.2.3;` (an interface by name) or `import name: func|interface`.
      const match = /^import\s+(?:([a-z][a-z0-9-]*)\s*:(?!\S*\/)|([^;\s]+)\s*;)/.exec(trimmed);
      if (match) imports.push((match[1] ?? match[2])!);
    }
    depth += (trimmed.match(/\{/g) ?? []).length - (trimmed.match(/\}/g) ?? []).length;
    if (inRoot && depth === 0 && trimmed.endsWith("}")) inRoot = false;
  }
  return imports;
}

/**
 * Why `imports` are not covered by `capabilities`, one problem per import; empty when they are.
 * A `clawhive:host` interface is covered when the manifest declares one of its capabilities
 * (each call is then checked against the exact capability it needs).
 */
export function importProblems(imports: readonly string[], capabilities: readonly string[]): string[] {
  const problems: string[] = [];
  for (const name of imports) {
    const host = /^clawhive:host\/([a-z-]+)@(\d+\.\d+\.\d+)$/.exec(name);
    if (host) {
      const [, iface, version] = host as unknown as [string, string, string];
      const needs = Object.hasOwn(INTERFACE_CAPABILITIES, iface) ? INTERFACE_CAPABILITIES[iface]! : undefined;
      if (version !== HOST_VERSION) problems.push(`${name}: this runtime serves clawhive:host@${HOST_VERSION}`);
      else if (!needs) problems.push(`${name}: no such host interface`);
      else if (needs.length > 0 && !needs.some((c) => capabilities.includes(c))) problems.push(`${name}: needs one of ${needs.join(", ")} declared in plugin.json`);
      continue;
    }
    if (WASI_SUBSET.test(name)) problems.push(`${name}: WASI is not provided to plugins by this runtime; build without WASI features`);
    else problems.push(`${name}: outside the plugin contract (only clawhive:host interfaces may be imported)`);
  }
  return problems;
}

/**
 * Reads the component's real imports from its binary and refuses the plugin when they are not
 * covered by what its manifest declares. The component is checked against its recorded hash
 * first, so what is read is what was built.
 */
export async function verifyComponentImports(artifact: PluginArtifact): Promise<string[]> {
  const bytes = await readVerifiedBlob(artifact);
  let wit: unknown = componentWit(bytes);
  if (wit instanceof Promise) wit = await wit;
  const imports = importsOfWit(String(wit));
  const problems = importProblems(imports, artifact.manifest.capabilities);
  if (problems.length > 0) {
    throw new PluginError("imports_not_declared", `plugin ${artifact.manifest.name}: its component imports what its manifest does not declare:\n  ${problems.join("\n  ")}`);
  }
  return imports;
}
