import type { TrustedKey, TrustedKeys } from "../signing/index.js";
import { auditedRefusal, recordPluginEvent, type PluginAuditSink, type PluginSubject } from "./audit.js";

/**
 * The operator's trust in publisher keys, changed through here so that every trust and
 * revocation, allowed or refused, is a `plugin` audit record (action `trust` or `revoke`).
 */
export class KeyTrust {
  readonly #keys: TrustedKeys;
  readonly #audit: PluginAuditSink | undefined;

  constructor(keys: TrustedKeys, audit: PluginAuditSink | undefined) {
    this.#keys = keys;
    this.#audit = audit;
  }

  list(): Promise<TrustedKey[]> {
    return this.#keys.list();
  }

  async trust(input: { publicKey: string; publisher: string }, options: { by: string }): Promise<{ key: TrustedKey; action: "trusted" | "unchanged" }> {
    const subject = (): PluginSubject => ({ name: "key", publisher: typeof input.publisher === "string" ? input.publisher : null, origin: typeof input.publicKey === "string" ? input.publicKey.slice(0, 200) : null });
    const result = await auditedRefusal(this.#audit, { action: "trust", by: options.by, subject }, () => this.#keys.trust(input, options));
    await recordPluginEvent(this.#audit, { action: "trust", subject: keySubject(result.key), by: options.by, reason: result.action });
    return result;
  }

  async revoke(keyId: string, options: { by: string }): Promise<TrustedKey> {
    const key = await auditedRefusal(this.#audit, { action: "revoke", by: options.by, subject: () => ({ name: `key:${String(keyId).slice(0, 64)}` }) }, () => this.#keys.revoke(keyId, options));
    await recordPluginEvent(this.#audit, { action: "revoke", subject: keySubject(key), by: options.by, reason: "revoked" });
    return key;
  }
}

function keySubject(key: TrustedKey): PluginSubject {
  return { name: `key:${key.keyId}`, publisher: key.publisher, origin: key.publicKey };
}
