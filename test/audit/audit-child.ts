/**
 * A second runtime process for the multi-process and crash tests:
 *
 *   node audit-child.js append <file-url> <calls> <concurrency>   # then exits 0
 *   node audit-child.js load <file-url> 0 <concurrency>            # until killed
 *
 * Each caller loops: intent, a short effect, outcome. A line goes to stdout only after the
 * append resolved (durable): `intent <seq>` or `outcome <seq> <intentSeq>`. Stdout to a pipe is
 * synchronous on Linux, so a printed line was committed before it was printed.
 * Without arguments it does nothing, in case a test runner picks the file up.
 */
import { openAuditLog } from "../../runtime/audit/index.js";
import { openStore } from "../../runtime/store/index.js";

const [mode, url, callsArg = "0", concurrencyArg = "8"] = process.argv.slice(2);

async function main(): Promise<void> {
  if ((mode !== "append" && mode !== "load") || url === undefined) return;
  const store = await openStore({ url });
  const log = await openAuditLog(store);
  const calls = Number(callsArg);
  let next = 0;
  const caller = async (): Promise<void> => {
    while (mode === "load" || next < calls) {
      const n = next++;
      const intent = await log.appendIntent({
        kind: "host_call",
        traceId: `trace-${process.pid}`,
        runId: `run-${process.pid}-${n % 4}`,
        agent: "child",
        tool: "write-note",
        hostCall: { proxy: "fs", function: "write-file" },
        args: { path: `/work/notes/${n}.md`, pid: process.pid },
      });
      process.stdout.write(`intent ${intent.seq}\n`);
      await new Promise((resolve) => setImmediate(resolve));
      const outcome = await log.appendOutcome(intent, { status: "ok", resultSize: n });
      process.stdout.write(`outcome ${outcome.seq} ${intent.seq}\n`);
    }
  };
  await Promise.all(Array.from({ length: Number(concurrencyArg) }, caller));
  await log.close();
  await store.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
