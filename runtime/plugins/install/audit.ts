import type { PluginEventInput } from "../../audit/index.js";
import { ClawhiveError, PluginError } from "../../errors.js";
import type { PluginPackage } from "./package.js";

/** Where plugin records go (the runtime's audit log); durable before it resolves. */
export type PluginAuditSink = (event: PluginEventInput) => Promise<unknown>;

/** Who asked, when no one says: the runtime itself (its own plugins at start, loads). */
export const RUNTIME_PRINCIPAL = "runtime";

/** What a record says about the plugin: as much as was known when it was allowed or refused. */
export interface PluginSubject {
  name: string;
  version?: string | null;
  sha256?: string | null;
  publisher?: string | null;
  origin?: string | null;
}

export function subjectOf(pkg: PluginPackage): PluginSubject {
  return { name: pkg.manifest.name, version: pkg.manifest.version, sha256: pkg.sha256, publisher: pkg.manifest.publisher, origin: pkg.origin };
}

/**
 * Writes one plugin record. A refusal stands whether or not its record could be written (nothing
 * changed), so the refusing error is what the caller sees; an allowed change that cannot be
 * recorded is reported as such, saying that the change was made.
 */
export async function recordPluginEvent(
  sink: PluginAuditSink | undefined,
  event: { action: PluginEventInput["action"]; subject: PluginSubject; by: string; error?: unknown; reason?: string },
): Promise<void> {
  if (sink === undefined) return;
  const { action, subject, by, error } = event;
  const denied = error !== undefined;
  const reason = denied ? (error instanceof ClawhiveError ? error.code : "error") : (event.reason ?? action);
  const message = denied ? (error instanceof Error ? error.message : String(error)) : null;
  try {
    await sink({ action, decision: denied ? "deny" : "allow", ...subject, by, reason, message });
  } catch (cause) {
    if (denied) return;
    throw new PluginError(
      "plugin_audit_failed",
      `plugin ${subject.name}: the ${action} was done, but its audit record could not be written (${(cause as Error).message}); check the store, then 'clawhive audit verify'`,
      { cause },
    );
  }
}

/** Runs `work`; a refusal it throws is recorded (with what `subject()` knows by then) and rethrown. */
export async function auditedRefusal<T>(
  sink: PluginAuditSink | undefined,
  event: { action: PluginEventInput["action"]; by: string; subject: () => PluginSubject },
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    await recordPluginEvent(sink, { action: event.action, by: event.by, subject: event.subject(), error });
    throw error;
  }
}
