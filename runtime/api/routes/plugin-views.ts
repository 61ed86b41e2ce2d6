/** The API's views of an installed plugin and of an install's outcome. Publisher and descriptions are the plugin's own text: inert. */
import type * as v from "valibot";
import type { InstalledPlugin, InstallResult, PendingUpgrade } from "../../plugins/install/index.js";
import type { SignatureVerdict } from "../../plugins/signing/index.js";
import { parsePluginManifest } from "../../plugins/manifest.js";
import { inert } from "../../text/inert.js";
import type * as S from "../schemas/resources.js";

export function installAnswer(result: InstallResult): v.InferInput<typeof S.PluginInstalled> {
  return {
    action: result.action,
    plugin: pluginDetail(result.plugin),
    ...(result.diff === undefined ? {} : { diff: { widening: result.diff.widening, lines: result.diff.lines.map((l) => inert(l, { newlines: false })) } }),
    ...(result.signature === undefined ? {} : { signature: signatureView(result.signature) }),
  };
}

function signatureView(verdict: SignatureVerdict): v.InferInput<typeof S.SignatureVerdictSchema> {
  if (verdict.status === "signed") return { status: "signed", key_id: verdict.keyId, publisher: inert(verdict.publisher, { newlines: false }) };
  if (verdict.status === "acknowledged") return { status: "acknowledged", code: verdict.code, message: inert(verdict.message, { newlines: false }) };
  return { status: "unsigned" };
}

/** What a list shows of a plugin. Publisher and descriptions are the plugin's own text: inert. */
export function pluginSummary(p: InstalledPlugin): v.InferInput<typeof S.PluginSummarySchema> {
  return {
    name: p.name,
    version: p.version,
    format: p.format,
    publisher: inert(p.publisher),
    description: inert(p.manifest.description),
    sha256: p.blobSha256,
    size: p.size,
    capabilities: p.manifest.capabilities,
    tools: p.tools.map((t) => ({ name: t.name, risk: t.risk, capabilities: t.capabilities })),
    first_party: p.firstParty,
    origin: inert(p.origin),
    installed_at: new Date(p.installedAt).toISOString(),
    updated_at: new Date(p.updatedAt).toISOString(),
  };
}

export function pluginDetail(p: InstalledPlugin): v.InferInput<typeof S.PluginDetailSchema> {
  return {
    ...pluginSummary(p),
    tools: p.tools.map((t) => ({ name: t.name, description: inert(t.description), risk: t.risk, capabilities: t.capabilities, input_schema: t.inputSchema })),
    manifest: p.manifest as unknown as Record<string, unknown>,
  };
}

/** A pending upgrade: its manifest was checked when it was kept; its publisher, description and diff are the plugin's text, inert. */
export function pendingView(p: PendingUpgrade): v.InferInput<typeof S.PendingUpgradeSchema> {
  const manifest = parsePluginManifest(p.manifestText, `pending upgrade ${p.name}:plugin.json`);
  return {
    name: p.name,
    version: p.version,
    installed_version: p.base.version,
    publisher: inert(manifest.publisher),
    description: inert(manifest.description),
    sha256: p.blobSha256,
    origin: inert(p.origin),
    diff: { widening: p.diff.widening, lines: p.diff.lines.map((l) => inert(l, { newlines: false })) },
    proposed_by: inert(p.proposedBy),
    proposed_at: new Date(p.proposedAt).toISOString(),
    expires_at: new Date(p.expiresAt).toISOString(),
  };
}
