/**
 * The client in this process over a store alone, no runtime: the API's own routes for runs
 * (reading), approvals (reading and deciding) and the audit log answer it, so its answers,
 * refusals and error codes are a server's. Nothing is installed, migrated beyond the run
 * records, or driven: a store a runtime refuses (read-only: a copy kept for audit, a read-only
 * mount) can still be read, and reading leaves the audit log as it was.
 */
import { createCoreApp } from "../api/app-core.js";
import { approvalRoutes } from "../api/routes/approvals.js";
import { approvalPatternRoutes } from "../api/routes/approval-patterns.js";
import { auditRoutes } from "../api/routes/audit.js";
import { runReadRoutes } from "../api/routes/runs.js";
import { openAuditLog } from "../audit/index.js";
import { VERSION } from "../cli/version.js";
import { ApprovalStore } from "../policy/approvals/index.js";
import { RunRecords, runMigrations } from "../runs/records.js";
import { applyMigrations, systemClock, type Store } from "../store/index.js";
import type { ApiClawhiveClient } from "./client.js";
import { appClient } from "./app-client.js";

export interface StoreClientOptions {
  /** Close the store when the client is closed (a command that opened it for one call). */
  readonly ownsStore?: boolean;
  /** The person deciding approvals through this client (recorded in place of its token id). */
  readonly actor?: string;
}

export async function storeClient(store: Store, options: StoreClientOptions = {}): Promise<ApiClawhiveClient> {
  const clock = systemClock;
  try {
    await applyMigrations(store, runMigrations, { clock });
    const audit = await openAuditLog(store, { clock });
    const approvals = await ApprovalStore.open(store, { clock, audit: (event) => audit.appendPatternEvent(event) });
    // No runtime: no run is live here.
    const reader = { records: new RunRecords(store), approvals, audit, getRun: () => undefined };
    const routes = [...runReadRoutes(reader), ...approvalRoutes(reader), ...approvalPatternRoutes(reader), ...auditRoutes(reader)];
    const close = async () => {
      await audit.close();
      if (options.ownsStore) await store.close();
    };
    return appClient((tokens) => createCoreApp({ tokens, version: VERSION, routes }), { ...(options.actor === undefined ? {} : { actor: options.actor }), close });
  } catch (error) {
    if (options.ownsStore) await store.close();
    throw error;
  }
}
