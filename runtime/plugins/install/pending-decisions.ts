/** A person's decision on a pending widening upgrade: accept (verified again, against what is installed now) or reject. */
import { ConflictError, NotFoundError } from "../../errors.js";
import { auditedRefusal, recordPluginEvent, type PluginAuditSink } from "./audit.js";
import { checked } from "./package.js";
import type { PendingUpgrade } from "./pending.js";
import type { InstalledPlugin, PluginRegistry } from "./registry.js";
import type { PluginPackage } from "./package.js";

/** What a decision needs of the installer. */
export interface DecisionContext {
  registry: PluginRegistry;
  audit: PluginAuditSink | undefined;
}

/**
 * The pending upgrade of `name`, refused (and audited as an `upgrade` refusal) when there is
 * none, or when the installed plugin is no longer the one its diff was made against: a diff
 * read against 1.0 says nothing about what upgrading 1.1 would grant.
 */
export async function pendingToAccept(context: DecisionContext, name: string, by: string): Promise<{ pending: PendingUpgrade; pkg: PluginPackage }> {
  let subject: { name: string; version?: string; sha256?: string; origin?: string } = { name };
  return auditedRefusal(context.audit, { action: "upgrade", by, subject: () => subject }, async () => {
    const pending = await context.registry.pending.get(name);
    if (pending === undefined) throw noPending(name);
    subject = { name: pending.name, version: pending.version, sha256: pending.blobSha256, origin: pending.origin };
    const installed = await context.registry.get(name);
    if (!sameBase(installed, pending)) {
      const now = installed === undefined ? "it is no longer installed" : `it is now ${installed.name}@${installed.version} (sha256 ${installed.blobSha256.slice(0, 12)}…)`;
      throw new ConflictError(
        "upgrade_base_changed",
        `the pending upgrade of ${pending.name} to ${pending.version} was compared with ${pending.name}@${pending.base.version}, but ${now}; reject it and send the upgrade again to see its diff against what is installed`,
      );
    }
    // The blob is read back checked against its address, and the package against its manifest, as at upload.
    const bytes = await context.registry.blob(pending.blobSha256);
    const pkg = checked({ manifestText: pending.manifestText, manifestFile: `pending upgrade ${pending.name}@${pending.version}:plugin.json`, bytes, origin: pending.origin });
    return { pending, pkg };
  });
}

/** Drops the pending upgrade of `name`; the rejection is a `plugin` record (an `upgrade` refused by a person). */
export async function rejectPending(context: DecisionContext, name: string, by: string): Promise<PendingUpgrade> {
  const pending = await auditedRefusal(context.audit, { action: "upgrade", by, subject: () => ({ name }) }, async () => {
    const found = await context.registry.pending.get(name);
    if (found === undefined || !(await context.registry.pending.remove(found.name, found.blobSha256))) throw noPending(name);
    return found;
  });
  const subject = { name: pending.name, version: pending.version, sha256: pending.blobSha256, origin: pending.origin };
  const error = new ConflictError("upgrade_rejected", `the pending upgrade of ${pending.name} to ${pending.version} was rejected by ${by}`);
  await recordPluginEvent(context.audit, { action: "upgrade", subject, by, error });
  return pending;
}

/** An accepted upgrade whose diff, made again now, is not the one the person read is refused. */
export function sameDiff(pending: PendingUpgrade, lines: readonly string[]): void {
  if (JSON.stringify(pending.diff.lines) === JSON.stringify(lines)) return;
  throw new ConflictError("upgrade_diff_changed", `the permission diff of ${pending.name}@${pending.version} made again differs from the one shown (${lines.join("; ")}); reject it and send the upgrade again`);
}

function sameBase(installed: InstalledPlugin | undefined, pending: PendingUpgrade): boolean {
  return installed !== undefined && installed.blobSha256 === pending.base.sha256 && installed.updatedAt === pending.base.updatedAt && installed.version === pending.base.version;
}

function noPending(name: string): NotFoundError {
  return new NotFoundError(`no pending upgrade of plugin ${name} (none was refused for acceptance, or it expired, was accepted or rejected); see 'clawhive plugin upgrades'`);
}
