import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { PluginError } from "../../errors.js";
import { compileToolSchema, parseToolSchema, ToolSchemaError } from "../../json/index.js";
import { toolRisk } from "../../policy/engine.js";
import type { ToolDescriptor } from "../../sandbox/index.js";
import type { PluginArtifact } from "../artifact.js";
import { glueImportProblems, importProblems, verifyPluginImports } from "../imports.js";
import type { PluginManifest } from "../manifest.js";
import { canonicalText, type CodeSeal } from "../seal.js";
import type { InstalledTool } from "./registry.js";

const DESCRIBED = "described.json";
const SEAL_PURPOSE = "clawhive described plugin v1";

export interface Described {
  tools: ToolDescriptor[];
  imports: string[];
}

/**
 * What `describe` said for this exact artifact, read on this node before (kept beside the
 * compiled files, whose key covers the blob and the manifest): installing the same bytes into
 * another store (each test's, each new data dir's) need not instantiate the plugin again.
 * Used only under this node's seal (it decides the tools a plugin is installed with, and its
 * imports); checked against the manifest like a fresh answer. Anything else is ignored.
 */
export async function readDescribed(artifact: PluginArtifact, seal: CodeSeal): Promise<Described | undefined> {
  try {
    const raw = JSON.parse(await readFile(join(artifact.dir, DESCRIBED), "utf8")) as unknown;
    const parsed = v.safeParse(DescribedSchema, raw);
    if (!parsed.success || parsed.output.key !== artifact.key || parsed.output.seal !== seal.id) return undefined;
    const { tools, imports } = parsed.output;
    const text = canonicalText({ key: artifact.key, blob: artifact.blobSha256, tools, imports });
    return seal.verify(SEAL_PURPOSE, text, parsed.output.mac) ? { tools, imports } : undefined;
  } catch {
    return undefined;
  }
}

export async function writeDescribed(artifact: PluginArtifact, seal: CodeSeal, described: Described): Promise<void> {
  const file = join(artifact.dir, DESCRIBED);
  const staging = `${file}.${process.pid}.${Date.now()}.tmp`;
  const mac = seal.mac(SEAL_PURPOSE, canonicalText({ key: artifact.key, blob: artifact.blobSha256, tools: described.tools, imports: described.imports }));
  try {
    await writeFile(staging, JSON.stringify({ key: artifact.key, seal: seal.id, mac, ...described }));
    await rename(staging, file);
  } catch {
    await rm(staging, { force: true }).catch(() => undefined);
  }
}

/**
 * A component's imports as read from its blob before (the check against the manifest runs
 * again, it is cheap); an Extism module's are read again (cheap too, and checked differently).
 */
export async function cachedImports(artifact: PluginArtifact, imports: string[]): Promise<string[]> {
  if (artifact.format !== "component") return verifyPluginImports(artifact);
  checkImports(artifact.manifest.name, imports, artifact.manifest.capabilities, artifact.glueImports);
  return imports;
}

/** A component's imports (read from its binary) against its capabilities, and jco's list of the glue's against them. */
export function checkImports(name: string, imports: readonly string[], capabilities: readonly string[], glueImports: readonly string[]): void {
  const problems = [...importProblems(imports, capabilities), ...glueImportProblems(glueImports, imports)];
  if (problems.length > 0) throw new PluginError("imports_not_declared", `plugin ${name}: its component imports what its manifest does not declare:\n  ${problems.join("\n  ")}`);
}

/** Tool descriptors checked against the manifest: declared names, JSON Schemas, capabilities ⊆ manifest. */
export function checkDescriptors(manifest: PluginManifest, descriptors: readonly ToolDescriptor[]): InstalledTool[] {
  const seen = new Set<string>();
  return descriptors.map((d) => {
    if (!Object.hasOwn(manifest.tools, d.name)) throw new PluginError("tool_undeclared", `plugin ${manifest.name}: tool ${d.name} is not declared in plugin.json`);
    if (seen.has(d.name)) throw new PluginError("tool_duplicate", `plugin ${manifest.name}: tool ${d.name} is described twice`);
    seen.add(d.name);
    // Bounded and compiled here, so a schema the host cannot validate with refuses the install.
    let inputSchema: unknown;
    try {
      inputSchema = parseToolSchema(d.inputSchema, { tool: d.name });
      compileToolSchema(inputSchema, { tool: d.name });
    } catch (error) {
      if (!(error instanceof ToolSchemaError)) throw error;
      throw new PluginError("tool_schema_invalid", `plugin ${manifest.name}: ${error.message}`);
    }
    const undeclared = d.capabilities.filter((c) => !manifest.capabilities.includes(c));
    if (undeclared.length > 0) throw new PluginError("capability_undeclared", `plugin ${manifest.name}: tool ${d.name} uses ${undeclared.join(", ")}, not declared in plugin.json`);
    return { name: d.name, description: d.description, inputSchema, capabilities: [...d.capabilities], risk: toolRisk({ plugin: manifest, name: d.name, capabilities: d.capabilities }).risk };
  });
}

const DescribedSchema = v.object({
  key: v.string(),
  seal: v.string(),
  mac: v.string(),
  imports: v.array(v.string()),
  tools: v.array(
    v.strictObject({
      name: v.string(),
      description: v.string(),
      inputSchema: v.string(),
      capabilities: v.array(v.string()),
      risk: v.picklist(["safe", "guarded", "unsafe"]),
    }),
  ),
});
