/** The audit log the audit command tests read: eight records a minute apart, tampered on demand. */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { openAuditLog } from "../../runtime/audit/index.js";
import type { AuditRecord } from "../../runtime/audit/index.js";
import { openStore } from "../../runtime/store/index.js";
import type { Store } from "../../runtime/store/index.js";
import { dropAppendOnlyGuards, hostDenial, hostIntent, ManualClock, toolIntent } from "../audit/fixtures.js";

/** ManualClock's start: 2023-11-14T22:13:20.000Z. Each record below is one minute later. */
export const T0 = 1_700_000_000_000;
export const MINUTE = 60_000;

/**
 * A data dir whose store holds eight records:
 *   1 tool intent (run-1, mail)        2 host intent fs.read-file     3 its outcome ok     4 tool outcome ok
 *   5 denial fs.write (run-2, coder)   6 host intent (run-2)          7 its outcome error
 *   8 host intent (run-3), never settled: in flight
 * `tamper` runs on the store (append-only guards dropped) before it is closed.
 */
export async function populate(root: string, name: string, tamper?: (store: Store) => Promise<void>): Promise<string> {
  const dataDir = join(root, name);
  await mkdir(dataDir);
  const store = await openStore({ url: `file:${join(dataDir, "clawhive.db")}` });
  const clock = new ManualClock(T0);
  const log = await openAuditLog(store, { clock });
  const step = async (append: () => Promise<AuditRecord>): Promise<AuditRecord> => {
    const record = await append();
    clock.advance(MINUTE);
    return record;
  };
  const tool = await step(() => log.appendIntent(toolIntent()));
  const read = await step(() => log.appendIntent(hostIntent()));
  await step(() => log.appendOutcome(read, { status: "ok", resultSize: 12 }));
  await step(() => log.appendOutcome(tool, { status: "ok", resultSize: 40 }));
  const run2 = { runId: "run-2", traceId: "trace-2", agent: "coder", tool: "write-notes" };
  await step(() => log.appendDenial(hostDenial(run2)));
  const write = await step(() => log.appendIntent(hostIntent({ ...run2, hostCall: { proxy: "fs", function: "write-file" } })));
  await step(() => log.appendOutcome(write, { status: "error", error: { code: "io", message: "disk full\nretry later" } }));
  await step(() => log.appendIntent(hostIntent({ runId: "run-3", traceId: "trace-3", tool: "send" })));
  await log.close();
  if (tamper) {
    await dropAppendOnlyGuards(store);
    await tamper(store);
  }
  await store.close();
  return dataDir;
}
