/**
 * A real commit failure of chosen audit records: a trigger that aborts the insert of every
 * record matching `where` (SQL over the new row, `NEW.proxy = 'fs'`…), so the whole batch that
 * carries one fails as a full disk would fail it. Returns how to lift it.
 */
import type { Store } from "../../runtime/store/index.js";

let n = 0;

export async function refuseAuditRecords(store: Store, where: string): Promise<() => Promise<void>> {
  const name = `refuse_audit_${process.pid}_${++n}`;
  await store.execute(`CREATE TRIGGER ${name} BEFORE INSERT ON audit_records WHEN ${where} BEGIN SELECT RAISE(ABORT, 'disk I/O error (injected)'); END`);
  return async () => {
    await store.execute(`DROP TRIGGER IF EXISTS ${name}`);
  };
}

/** The outcome of a host call to `proxy`.`fn` (its intent is written). */
export const hostOutcome = (proxy: string, fn: string) => `NEW.kind = 'host_call' AND NEW.proxy = '${proxy}' AND NEW.host_function = '${fn}' AND NEW.status != 'intent'`;
/** The intent of a host call to `proxy`.`fn`. */
export const hostIntent = (proxy: string, fn: string) => `NEW.kind = 'host_call' AND NEW.proxy = '${proxy}' AND NEW.host_function = '${fn}' AND NEW.status = 'intent'`;
