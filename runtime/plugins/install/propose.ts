import { basename } from "node:path";
import { PluginError } from "../../errors.js";
import { defaultRisks } from "../../policy/catalogue/index.js";
import { readComponentImports } from "../component-imports.js";
import { capabilitiesForImport } from "../imports.js";
import { PluginManifestSchema, type PluginManifest, type Risk } from "../manifest.js";
import { readTypedTools } from "../typed/index.js";
import * as v from "valibot";

const ORDER: readonly Risk[] = ["safe", "guarded", "unsafe"];

/** A manifest proposed for a bare component, with the lines a person reads before confirming it. */
export interface ManifestProposal {
  manifest: PluginManifest;
  lines: string[];
}

/**
 * A manifest for a typed component that came without one, read from its binary: its name from
 * the file, the capabilities its imports need, every exported function a tool whose risk is the
 * highest default of those capabilities (a function's own use of them cannot be told apart).
 * It is only a proposal: a person confirms it (or edits it into a plugin.json) before install.
 */
export function proposeManifest(bytes: Uint8Array, file: string): ManifestProposal {
  const label = basename(file);
  if (bytes[6] !== 1 || bytes[7] !== 0) {
    throw new PluginError("manifest_missing", `${label} is a core module (an Extism plugin): its tools are known only from describe; write its plugin.json and install with --manifest FILE`);
  }
  const { tools, types } = readTypedTools(bytes, label);
  const typeOnly = new Set(types.typeOnlyImports);
  const capabilities = new Set<string>();
  const unknown: string[] = [];
  for (const { name } of readComponentImports(bytes, label)) {
    if (typeOnly.has(name)) continue;
    const needs = capabilitiesForImport(name);
    if (needs) for (const c of needs) capabilities.add(c);
    else unknown.push(name);
  }
  const capabilityList = [...capabilities].sort();
  const risk = capabilityList.map((c) => defaultRisks([c])[c]!).reduce<Risk>((a, b) => (ORDER.indexOf(b) > ORDER.indexOf(a) ? b : a), "safe");
  const name = label.replace(/\.wasm$/i, "").toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^[^a-z]+/, "").replace(/-+$/, "").slice(0, 63) || "plugin";
  const raw = {
    name,
    version: "0.1.0",
    description: `Typed component ${label}: ${tools.map((t) => t.name).join(", ")}`.slice(0, 500),
    publisher: "unverified",
    format: "component",
    contract: "typed",
    capabilities: capabilityList,
    tools: Object.fromEntries(tools.map((t) => [t.name, { risk, capabilities: capabilityList }])),
  };
  const parsed = v.safeParse(PluginManifestSchema, raw);
  if (!parsed.success) throw new PluginError("manifest_unproposable", `${label}: no manifest can be proposed (${parsed.issues[0]?.message ?? "invalid"}); write its plugin.json and install with --manifest FILE`);
  const lines = [
    `name ${name}, version 0.1.0, publisher unverified (edit them in the written plugin.json to change them)`,
    `capabilities: ${capabilityList.length > 0 ? capabilityList.join(", ") : "none (it imports no host interface)"}`,
    ...tools.map((t) => `tool ${t.name} (${risk}): ${t.description}`),
    ...unknown.map((i) => `import ${i}: not served here; the install will refuse it`),
  ];
  return { manifest: raw as PluginManifest, lines };
}
