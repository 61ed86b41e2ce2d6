import { PluginError } from "../errors.js";
import { readVerifiedBlob, type PluginArtifact } from "./artifact.js";
import { readComponentImports } from "./component-imports.js";
import { EXTISM_KERNEL, EXTISM_USER, extismExportShape, extismHostFunction, KERNEL_CHANNELS, KERNEL_LOG, KERNEL_LOG_LEVEL, KERNEL_SERVED } from "./extism-abi.js";
import { PREVIEW1_FILES, PREVIEW1_SERVED } from "../sandbox/wasi/preview1.js";
import { readComponentTypes } from "./typed/component-types.js";

/** The host package version plugins are built against now (wit/host). */
export const HOST_VERSION = "0.1.1";

/**
 * Every `clawhive:host` version this runtime serves. Within 0.x a version only adds functions
 * (0.1.1 added fs `walk` and `search`), so one set of host functions serves them all: a plugin
 * built against 0.1.0 keeps working, and simply never calls what it does not know.
 */
export const HOST_VERSIONS: readonly string[] = Object.freeze(["0.1.0", "0.1.1"]);

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
  schedule: ["schedule"],
  memory: ["memory"],
  mail: ["mail.send"],
  message: ["message.send"],
};

/** The capabilities that make an import legitimate (none for `clawhive:host/types`, undefined when none does). */
export function capabilitiesForImport(name: string): readonly string[] | undefined {
  const host = /^clawhive:host\/([a-z-]+)@/.exec(name);
  if (host && Object.hasOwn(INTERFACE_CAPABILITIES, host[1]!)) return INTERFACE_CAPABILITIES[host[1]!];
  const wasi = /^wasi:([a-z-]+\/[a-z-]+)@/.exec(name);
  if (wasi && Object.hasOwn(WASI_INTERFACES, wasi[1]!)) return WASI_INTERFACES[wasi[1]!];
  return undefined;
}

/**
 * The WASI 0.2 interfaces clawhive serves per instance (runtime/sandbox/wasi/), with the
 * capabilities that make each legitimate to import: files only through the fs proxy, requests
 * only through the http proxy, stdout/stderr only into the log. The rest (clocks, random, io,
 * an empty stdin, the granted environment and config, sockets that refuse every call) reach
 * nothing outside the instance.
 */
export const WASI_INTERFACES: Readonly<Record<string, readonly string[]>> = {
  "cli/environment": [],
  "cli/exit": [],
  "cli/stdin": [],
  "cli/stdout": ["log"],
  "cli/stderr": ["log"],
  "cli/terminal-input": [],
  "cli/terminal-output": [],
  "cli/terminal-stdin": [],
  "cli/terminal-stdout": [],
  "cli/terminal-stderr": [],
  "clocks/wall-clock": [],
  "clocks/monotonic-clock": [],
  "random/random": [],
  "random/insecure": [],
  "random/insecure-seed": [],
  "io/error": [],
  "io/poll": [],
  "io/streams": [],
  "config/store": [],
  // A descriptor comes only from the preopens and a request leaves only through the handler:
  // the types alone reach no file and no host, so they need nothing.
  "filesystem/types": [],
  "filesystem/preopens": ["fs.read", "fs.write"],
  "http/types": [],
  "http/outgoing-handler": ["http.fetch"],
  // Served, never opened (runtime/sandbox/wasi/sockets.ts): standard libraries import them
  // whether or not the code opens a socket; each call is refused on record at call time.
  "sockets/network": [],
  "sockets/instance-network": [],
  "sockets/ip-name-lookup": [],
  "sockets/tcp": [],
  "sockets/tcp-create-socket": [],
  "sockets/udp": [],
  "sockets/udp-create-socket": [],
};

/** Why a `wasi:` import is refused; undefined when it is served and covered. */
export function wasiImportProblem(name: string, capabilities: readonly string[]): string | undefined {
  const match = /^wasi:([a-z-]+\/[a-z-]+)@(\d+\.\d+\.\d+(?:-[a-z0-9.-]+)?)$/.exec(name);
  if (!match) return `${name}: outside the plugin contract (a WASI interface is named wasi:<package>/<interface>@<version>)`;
  const [, iface, version] = match as unknown as [string, string, string];
  const needs = Object.hasOwn(WASI_INTERFACES, iface) ? WASI_INTERFACES[iface]! : undefined;
  if (!needs) return `${name}: outside the plugin contract (clawhive serves ${Object.keys(WASI_INTERFACES).map((i) => `wasi:${i}`).join(", ")})`;
  const served = iface === "config/store" ? /^0\.2\.\d+(?:-draft)?$/ : /^0\.2\.\d+$/;
  if (!served.test(version)) return `${name}: this runtime serves WASI 0.2.x${iface === "config/store" ? " (and 0.2.0-draft)" : ""}`;
  if (needs.length > 0 && !needs.some((c) => capabilities.includes(c))) return `${name}: needs one of ${needs.join(", ")} declared in plugin.json`;
  return undefined;
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
      if (!HOST_VERSIONS.includes(version)) problems.push(`${name}: this runtime serves clawhive:host@${HOST_VERSIONS.join(", @")}`);
      else if (!needs) problems.push(`${name}: no such host interface`);
      else if (needs.length > 0 && !needs.some((c) => capabilities.includes(c))) problems.push(`${name}: needs one of ${needs.join(", ")} declared in plugin.json`);
      continue;
    }
    if (name.startsWith("wasi:")) {
      const problem = wasiImportProblem(name, capabilities);
      if (problem) problems.push(problem);
    } else problems.push(`${name}: outside the plugin contract (only clawhive:host and the served WASI 0.2 interfaces may be imported)`);
  }
  return problems;
}

/**
 * Reads the plugin's real imports from its binary and refuses the plugin when they are not
 * covered by what its manifest declares, whatever its format. The blob is checked against its
 * recorded hash first, so what is read is what was built. Returns the imports' names.
 */
export async function verifyPluginImports(artifact: PluginArtifact): Promise<string[]> {
  return artifact.format === "extism" ? verifyExtismImports(artifact) : verifyComponentImports(artifact);
}

/**
 * The component check. Kept for callers that predate Extism plugins: an Extism artifact is
 * handed to its own check, never read as a component.
 *
 * The imports are read as structured data, never from printed WIT: the exact (versioned) names
 * of the binary's top-level import section (see component-imports.ts), checked against the
 * manifest; and jco's list of what the transpiled glue imports from the host, each of which must
 * be one of those (jco drops versions). A name that appears only in a doc comment, a string or a
 * type is no import in either list.
 */
export async function verifyComponentImports(artifact: PluginArtifact): Promise<string[]> {
  if (artifact.format === "extism") return verifyExtismImports(artifact);
  const bytes = await readVerifiedBlob(artifact);
  const raw = readComponentImports(new Uint8Array(bytes), `plugin ${artifact.manifest.name}`).map((i) => i.name);
  // A name imported only as a type (a world's own record, an interface used only for its types)
  // needs nothing from the host; the component's types tell, read only when such a name is there.
  const typeOnly = raw.some((name) => !name.startsWith("clawhive:host/")) ? new Set(readComponentTypes(new Uint8Array(bytes), `plugin ${artifact.manifest.name}`).typeOnlyImports) : new Set<string>();
  const imports = raw.filter((name) => !typeOnly.has(name));
  const problems = [...importProblems(imports, artifact.manifest.capabilities), ...glueImportProblems(artifact.glueImports, imports)];
  if (problems.length > 0) {
    throw new PluginError("imports_not_declared", `plugin ${artifact.manifest.name}: its component imports what its manifest does not declare:\n  ${problems.join("\n  ")}`);
  }
  return imports;
}

/**
 * Why jco's list of the glue's imports (unversioned interface names, or plain names) is not
 * covered by the component's own import section; empty when every one is.
 */
export function glueImportProblems(glueImports: readonly string[], imports: readonly string[]): string[] {
  const known = new Set(imports.flatMap((name) => [name, name.replace(/@[^@/]*$/, "")]));
  return glueImports.filter((name) => !known.has(name)).map((name) => `${name}: imported by the transpiled glue but not by the component's import section`);
}

/** An Extism plugin's core module: its imports (`module.name`) and the exports it must have. */
async function verifyExtismImports(artifact: PluginArtifact): Promise<string[]> {
  const bytes = await readVerifiedBlob(artifact);
  let module: WebAssembly.Module;
  try {
    module = await WebAssembly.compile(new Uint8Array(bytes));
  } catch (cause) {
    throw new PluginError("invalid_module", `plugin ${artifact.manifest.name}: plugin.wasm is not a valid WebAssembly core module: ${(cause as Error).message}`, { cause });
  }
  const problems = [...extismImportProblems(WebAssembly.Module.imports(module), artifact.manifest.capabilities), ...extismExportProblems(WebAssembly.Module.exports(module), Object.keys(artifact.manifest.tools))];
  if (problems.length > 0) {
    throw new PluginError("imports_not_declared", `plugin ${artifact.manifest.name}: its Extism module imports what its manifest does not declare, or lacks what the format needs:\n  ${problems.join("\n  ")}`);
  }
  return WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}`);
}

/**
 * Why an Extism module's imports are refused, one problem per import; empty when none is.
 * Only served kernel functions and `clawhive:host` functions (covered by `capabilities`, the
 * same rule as a component's interfaces) may be imported: WASI, Extism's own HTTP and config,
 * and anything else would reach past the policy.
 */
export function extismImportProblems(imports: readonly WebAssembly.ModuleImportDescriptor[], capabilities: readonly string[]): string[] {
  const problems: string[] = [];
  for (const { module, name, kind } of imports) {
    const label = `${module}.${name}`;
    if (module === EXTISM_KERNEL || module === EXTISM_USER) {
      if (kind !== "function") {
        problems.push(`${label}: only functions are imported from ${module}`);
        continue;
      }
    }
    if (module === EXTISM_KERNEL) {
      if (Object.hasOwn(KERNEL_CHANNELS, name)) {
        const needs = KERNEL_CHANNELS[name]!;
        if (needs.length > 0 && !needs.some((c) => capabilities.includes(c))) problems.push(`${label}: served by the http proxy; needs ${needs.join(" or ")} declared in plugin.json`);
      } else if (Object.hasOwn(KERNEL_LOG, name)) {
        if (!capabilities.includes("log")) problems.push(`${label}: served by the log proxy; needs log declared in plugin.json`);
      } else if (!KERNEL_SERVED.has(name) && name !== KERNEL_LOG_LEVEL) problems.push(`${label}: not an Extism kernel function this runtime serves`);
    } else if (module === EXTISM_USER) {
      const host = extismHostFunction(name);
      if (!host) problems.push(`${label}: not a clawhive host function (expected <interface>_<function>, e.g. fs_read)`);
      else problems.push(...importProblems([`clawhive:host/${host.iface}@${HOST_VERSION}`], capabilities).map((p) => `${label}: ${p.slice(p.indexOf(": ") + 2)}`));
    } else if (module === "wasi_snapshot_preview1" && kind === "function" && PREVIEW1_SERVED.has(name)) {
      if (PREVIEW1_FILES.has(name) && !capabilities.includes("fs.read") && !capabilities.includes("fs.write")) {
        problems.push(`${label}: reaches files through the fs proxy; needs fs.read or fs.write declared in plugin.json`);
      }
    } else if (/^wasi/.test(module)) {
      problems.push(`${label}: not a WASI preview1 function this runtime serves (clawhive serves wasi_snapshot_preview1 files, clocks, random, args, environment, stdout/stderr and sockets that refuse every call)`);
    } else {
      problems.push(`${label}: outside the plugin contract (only ${EXTISM_KERNEL} and ${EXTISM_USER} may be imported)`);
    }
  }
  return problems;
}

/**
 * An Extism plugin exports its memory and its tools in one of three shapes (extismExportShape):
 * `describe` and `call`; hyper-mcp's `list_tools` and `call_tool`; or one function per tool of
 * plugin.json.
 */
export function extismExportProblems(exports: readonly WebAssembly.ModuleExportDescriptor[], tools: readonly string[] = []): string[] {
  const problems: string[] = [];
  const has = (name: string, kind: string) => exports.some((e) => e.name === name && e.kind === kind);
  const shape = extismExportShape(exports.filter((e) => e.kind === "function").map((e) => e.name));
  const pair = shape === "servlet" ? ["describe", "call"] : shape === "mcp-v2" ? ["list_tools", "call_tool"] : [];
  const required: Array<readonly [string, "function" | "memory"]> = shape === "functions" ? tools.map((t) => [t, "function"] as const) : pair.map((f) => [f, "function"] as const);
  for (const [name, kind] of [...required, ["memory", "memory"] as const]) {
    if (has(name, kind)) continue;
    if (kind === "memory") problems.push("export memory: missing (an Extism plugin exports its memory)");
    else if (shape === "servlet") problems.push(`export ${name}: missing (an Extism plugin exports a ${name} function)`);
    else if (shape === "mcp-v2") problems.push(`export ${name}: missing (a plugin of hyper-mcp's ABI v2 exports list_tools and call_tool)`);
    else problems.push(`export ${name}: missing (tool ${name} of plugin.json is not a function the module exports; an Extism plugin exports either describe and call, list_tools and call_tool, or one function per tool)`);
  }
  if (shape === "functions" && tools.length === 0) problems.push("exports: neither describe and call, list_tools and call_tool, nor a function for any tool of plugin.json");
  return problems;
}
