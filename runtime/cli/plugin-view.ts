/**
 * What `clawhive plugin` prints of a plugin, from the API's views (snake_case) turned into the
 * fields the command line has always printed (camelCase).
 */
import type { PluginDetailView, PluginInstallView, PluginView } from "../client/client.js";
import { formatBytes } from "../client/plugin-upload.js";
import { inert, jsonOut } from "./render.js";

export interface PluginSummary {
  name: string;
  version: string;
  format: string;
  publisher: string;
  description: string;
  sha256: string;
  size: number;
  capabilities: string[];
  tools: Array<{ name: string; risk: string; capabilities: string[] }>;
  firstParty: boolean;
  origin: string;
  installedAt: string;
  updatedAt: string;
}

/** A summary with each tool's description (and input schema) and the manifest: `plugin info`. */
export interface PluginDetail extends Omit<PluginSummary, "tools"> {
  tools: Array<{ name: string; risk: string; capabilities: string[]; description: string; inputSchema?: unknown }>;
  manifest: unknown;
}

/** What an install or upgrade did, as both modes report it. */
export interface InstallReport {
  action: string;
  plugin: PluginSummary;
  /** The permission diff, one change a line. */
  diff?: readonly string[];
  /** What was found of the publisher's signature. */
  signature?: PluginInstallView["signature"];
}

/** A summary's own fields from the API's view (its detail view answers an install). */
export function summaryOf(p: PluginView | PluginDetailView): PluginSummary {
  return {
    name: p.name,
    version: p.version,
    format: p.format,
    publisher: p.publisher,
    description: p.description,
    sha256: p.sha256,
    size: p.size,
    capabilities: p.capabilities,
    tools: p.tools.map((t) => ({ name: t.name, risk: t.risk, capabilities: t.capabilities })),
    firstParty: p.first_party,
    origin: p.origin,
    installedAt: p.installed_at,
    updatedAt: p.updated_at,
  };
}

export function detailOf(p: PluginDetailView): PluginDetail {
  return {
    ...summaryOf(p),
    tools: p.tools.map(({ input_schema, ...t }) => ({ ...t, ...(input_schema === undefined ? {} : { inputSchema: input_schema }) })),
    manifest: p.manifest,
  };
}

/** What an install or upgrade did, from the API's answer. */
export function reportOf(answer: PluginInstallView): InstallReport {
  return { action: answer.action, plugin: summaryOf(answer.plugin), ...(answer.diff ? { diff: answer.diff.lines } : {}), ...(answer.signature ? { signature: answer.signature } : {}) };
}

export function printInstall(report: InstallReport, json: boolean): void {
  const p = report.plugin;
  if (json) {
    console.log(jsonOut({ action: report.action, ...p, ...(report.diff ? { diff: report.diff } : {}), ...(report.signature ? { signature: report.signature } : {}) }));
    return;
  }
  if (report.action === "unchanged") {
    console.log(`${p.name}@${p.version} is already installed with these exact bytes (${p.sha256.slice(0, 12)})`);
    return;
  }
  console.log(`${report.action} ${p.name}@${p.version} (${p.format}, ${formatBytes(p.size)}, sha256 ${p.sha256})`);
  for (const line of report.diff ?? []) console.log(`  ${inert(line)}`);
  if (/^oci:/.test(p.origin)) console.log(`  from: ${inert(p.origin)}`);
  const signature = report.signature;
  if (signature?.status === "signed") console.log(`  signed by: key ${signature.key_id} (publisher ${inert(signature.publisher ?? "")}, trusted)`);
  if (signature?.status === "acknowledged") console.log(`  NOT VERIFIED: ${signature.code}, installed on --allow-unsigned (audited)`);
  console.log(`  tools: ${p.tools.map((t) => `${p.name}.${t.name} (${t.risk})`).join(", ")}`);
  console.log(`  capabilities: ${p.capabilities.join(", ") || "none"} — an agent must list the plugin and grant these before its tools run`);
}

export function printList(plugins: readonly PluginSummary[], json: boolean): void {
  if (json) {
    console.log(jsonOut(plugins));
    return;
  }
  if (plugins.length === 0) {
    console.log("no plugins installed");
    return;
  }
  const width = Math.max(...plugins.map((p) => `${p.name}@${p.version}`.length));
  for (const p of plugins) {
    console.log(`${`${p.name}@${p.version}`.padEnd(width)}  ${p.format.padEnd(9)}  ${inert(p.publisher).padEnd(12)}  ${p.tools.length} tool(s)  ${p.sha256.slice(0, 12)}`);
  }
}

export function printInfo(plugin: PluginDetail, json: boolean): void {
  if (json) {
    console.log(jsonOut(plugin));
    return;
  }
  console.log(`${plugin.name}@${plugin.version} (${plugin.format})`);
  console.log(`  ${inert(plugin.description)}`);
  console.log(`  publisher     ${inert(plugin.publisher)}`);
  console.log(`  sha256        ${plugin.sha256}`);
  console.log(`  size          ${formatBytes(plugin.size)}`);
  console.log(`  capabilities  ${plugin.capabilities.join(", ") || "none"}`);
  console.log(`  installed     ${plugin.installedAt}${plugin.updatedAt !== plugin.installedAt ? `, upgraded ${plugin.updatedAt}` : ""}${plugin.firstParty ? " (built in)" : ""}`);
  console.log(`  from          ${inert(plugin.origin)}`);
  console.log("  tools:");
  for (const t of plugin.tools) console.log(`    ${t.name.padEnd(18)} ${t.risk.padEnd(7)} ${(t.capabilities.join(", ") || "-").padEnd(24)} ${inert(t.description)}`);
}
