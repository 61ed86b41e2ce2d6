/**
 * A manifest proposed for a bare binary that came without one — a component (typed exports, or
 * the describe/call contract) or an Extism module (describe/call, hyper-mcp's v2, or one function
 * per tool) — read from the binary: its name from the file, the capabilities its real imports
 * need (propose-capabilities.ts), its tools from its exports or, where only the plugin can say
 * them, from `describe` read in a sandbox with no grants. The proposal is checked as install
 * checks a package before anything is written: one install would refuse is refused here.
 */
import { basename } from "node:path";
import * as v from "valibot";
import { ClawhiveError, PluginError } from "../../errors.js";
import { defaultRisks } from "../../policy/catalogue/index.js";
import type { ToolDescriptor } from "../../sandbox/index.js";
import { readComponentImports } from "../component-imports.js";
import { extismExportShape } from "../extism-abi.js";
import { extismExportProblems, extismImportProblems, importProblems } from "../imports.js";
import { PluginManifestSchema, type PluginManifest, type Risk } from "../manifest.js";
import { readComponentTypes, readTypedTools } from "../typed/index.js";
import { checkDescriptors } from "./described.js";
import { componentCapabilities, extismCapabilities, type ProposedCapabilities } from "./propose-capabilities.js";
import { typedDescriptors } from "./typed.js";

const ORDER: readonly Risk[] = ["safe", "guarded", "unsafe"];
const TOOL = /^[a-z][a-z0-9_]{0,62}$/;

/** A manifest proposed for a bare binary, with the lines a person reads before confirming it. */
export interface ManifestProposal {
  manifest: PluginManifest;
  lines: string[];
}

/** Reads the tools of a plugin only its own `describe` can list, under a provisional manifest. */
export type ProposalDescriber = (manifest: PluginManifest, bytes: Uint8Array) => Promise<ToolDescriptor[]>;

export interface ProposeOptions {
  /** Needed for a describe/call component and an Extism servlet or v2 plugin; without it those are refused. */
  describe?: ProposalDescriber;
}

/** The highest default risk of `capabilities`. */
function riskOf(capabilities: Iterable<string>): Risk {
  const list = [...capabilities];
  return list.map((c) => defaultRisks([c])[c]!).reduce<Risk>((a, b) => (ORDER.indexOf(b) > ORDER.indexOf(a) ? b : a), "safe");
}

function nameOf(label: string): string {
  return label.replace(/\.wasm$/i, "").toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^[^a-z]+/, "").replace(/-+$/, "").slice(0, 63) || "plugin";
}

function unproposable(label: string, problems: readonly string[]): PluginError {
  return new PluginError(
    "manifest_unproposable",
    `${label}: no manifest is proposed, because install would refuse the plugin:\n  ${problems.join("\n  ")}\nnothing was written; write its plugin.json and install with --manifest FILE`,
  );
}

export async function proposeManifest(bytes: Uint8Array, file: string, options: ProposeOptions = {}): Promise<ManifestProposal> {
  const label = basename(file);
  if (bytes.length < 8 || bytes[0] !== 0x00 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new PluginError("invalid_module", `${label} is not WebAssembly (no \\0asm preamble)`);
  }
  // The preamble's layer (bytes 6-7) is 1 for a component, 0 for a core module (an Extism plugin).
  return bytes[6] === 1 && bytes[7] === 0 ? proposeComponent(bytes, label, options) : proposeExtism(bytes, label, options);
}

async function proposeComponent(bytes: Uint8Array, label: string, options: ProposeOptions): Promise<ManifestProposal> {
  const types = readComponentTypes(bytes, label);
  const typeOnly = new Set(types.typeOnlyImports);
  const imports = readComponentImports(bytes, label).map((i) => i.name).filter((name) => !typeOnly.has(name));
  const found = componentCapabilities(imports, types.importedFunctions);
  if (found.refused.length > 0) throw unproposable(label, importProblems(found.refused, []));
  const base = { name: nameOf(label), version: "0.1.0", publisher: "unverified", format: "component" as const };
  if (!types.toolsContract) {
    const { tools } = readTypedTools(bytes, label);
    const capabilities = [...found.capabilities].sort();
    const risk = riskOf(capabilities);
    const manifest = parsed(label, {
      ...base,
      description: `Typed component ${label}: ${tools.map((t) => t.name).join(", ")}`.slice(0, 500),
      contract: "typed",
      capabilities,
      tools: Object.fromEntries(tools.map((t) => [t.name, { risk, capabilities }])),
    });
    const problems = importProblems(imports, manifest.capabilities);
    if (problems.length > 0) throw unproposable(label, problems);
    installChecks(label, () => checkDescriptors(manifest, typedDescriptors(manifest, bytes).descriptors));
    return { manifest, lines: linesOf(manifest, found, tools.map((t) => ({ name: t.name, description: t.description }))) };
  }
  const described = await describedManifest(bytes, label, { ...base, description: `Component ${label}` }, found, options);
  const problems = importProblems(imports, described.manifest.capabilities);
  if (problems.length > 0) throw unproposable(label, problems);
  return described;
}

async function proposeExtism(bytes: Uint8Array, label: string, options: ProposeOptions): Promise<ManifestProposal> {
  let module: WebAssembly.Module;
  try {
    module = await WebAssembly.compile(bytes as Uint8Array<ArrayBuffer>);
  } catch (cause) {
    throw new PluginError("invalid_module", `${label} is not a valid WebAssembly core module: ${(cause as Error).message}`, { cause });
  }
  const imports = WebAssembly.Module.imports(module);
  const exports = WebAssembly.Module.exports(module);
  const found = extismCapabilities(imports);
  const base = { name: nameOf(label), version: "0.1.0", publisher: "unverified", format: "extism" as const };
  const functions = exports.filter((e) => e.kind === "function").map((e) => e.name);
  let proposal: ManifestProposal;
  if (extismExportShape(functions) === "functions") {
    const tools = functions.filter((name) => TOOL.test(name));
    const skipped = functions.filter((name) => !TOOL.test(name) && !name.startsWith("_"));
    if (tools.length === 0) throw unproposable(label, extismExportProblems(exports, []));
    const capabilities = [...found.capabilities].sort();
    const risk = riskOf(capabilities);
    const manifest = parsed(label, { ...base, description: `Extism plugin ${label}: ${tools.join(", ")}`.slice(0, 500), capabilities, tools: Object.fromEntries(tools.map((t) => [t, { risk }])) });
    for (const name of skipped) found.notes.push(`export ${name}: not a tool name (lowercase letters, digits, '_'), so not a tool`);
    proposal = { manifest, lines: linesOf(manifest, found, tools.map((name) => ({ name, description: `the exported function ${name}` }))) };
  } else {
    // Refused on what the binary shows before its describe is ever run (a foreign import would not even link).
    const early = [...extismImportProblems(imports, [...found.capabilities]), ...extismExportProblems(exports)];
    if (early.length > 0) throw unproposable(label, early);
    proposal = await describedManifest(bytes, label, { ...base, description: `Extism plugin ${label}` }, found, options);
  }
  const problems = [...extismImportProblems(imports, proposal.manifest.capabilities), ...extismExportProblems(exports, Object.keys(proposal.manifest.tools))];
  if (problems.length > 0) throw unproposable(label, problems);
  return proposal;
}

/** A plugin whose tools only its `describe` says: read under a provisional manifest, then checked as install checks them. */
async function describedManifest(bytes: Uint8Array, label: string, base: Record<string, unknown>, found: ProposedCapabilities, options: ProposeOptions): Promise<ManifestProposal> {
  if (!options.describe) throw new PluginError("manifest_unproposable", `${label}: its tools are known only from its own describe, which cannot be read here; write its plugin.json and install with --manifest FILE`);
  const provisional = parsed(label, { ...base, capabilities: [...found.capabilities].sort(), tools: {} });
  let descriptors: ToolDescriptor[];
  try {
    descriptors = await options.describe(provisional, bytes);
  } catch (error) {
    // Install reads describe the same way: a describe that traps or answers nonsense fails it too.
    if (error instanceof ClawhiveError) throw unproposable(label, [`describe: ${error.message}`]);
    throw error;
  }
  if (descriptors.length === 0) throw unproposable(label, ["describe lists no tools"]);
  // A tool may say it uses what no import shows (a servlet's own claim): proposed, for a person to see.
  const capabilities = [...new Set([...found.capabilities, ...descriptors.flatMap((d) => d.capabilities)])].sort();
  // A tool's risk is its own capabilities' (an Extism servlet's tool without any gets the manifest's, parseDescribe).
  const tools = Object.fromEntries(descriptors.map((d) => [d.name, { risk: riskOf(d.capabilities) }]));
  const manifest = parsed(label, { ...base, description: `${String(base.description)}: ${descriptors.map((d) => d.name).join(", ")}`.slice(0, 500), capabilities, tools });
  installChecks(label, () => checkDescriptors(manifest, descriptors.map((d) => ({ ...d, risk: manifest.tools[d.name]?.risk ?? d.risk }))));
  return { manifest, lines: linesOf(manifest, found, descriptors) };
}

/** `raw` checked as plugin.json is; returned as written (no defaults such as `source` filled in). */
function parsed(label: string, raw: Record<string, unknown>): PluginManifest {
  const result = v.safeParse(PluginManifestSchema, raw);
  if (!result.success) {
    const issue = result.issues[0];
    throw unproposable(label, [`plugin.json ${issue ? (v.getDotPath(issue) ?? "(root)") : "(root)"}: ${issue?.message ?? "invalid"}`]);
  }
  return raw as PluginManifest;
}

/** Runs an install check; a refusal becomes the proposal's, naming what install would say. */
function installChecks(label: string, check: () => unknown): void {
  try {
    check();
  } catch (error) {
    if (error instanceof PluginError) throw unproposable(label, [error.message]);
    throw error;
  }
}

function linesOf(manifest: PluginManifest, found: ProposedCapabilities, tools: ReadonlyArray<{ name: string; description: string }>): string[] {
  return [
    `name ${manifest.name}, version 0.1.0, publisher unverified (edit them in the written plugin.json to change them)`,
    `capabilities: ${manifest.capabilities.length > 0 ? manifest.capabilities.join(", ") : "none (its imports reach nothing outside the sandbox)"}`,
    ...tools.map((t) => `tool ${t.name} (${manifest.tools[t.name]?.risk ?? "?"}): ${t.description}`),
    ...found.notes,
  ];
}
