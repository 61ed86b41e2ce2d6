import type { RunSession } from "./run-session.js";
import type { RunView } from "./views.js";

/** How long the record may lag the stream's `run-ended` event before the run is shown as it stands. */
const END_RECORD_WAIT_MS = 10_000;

/**
 * The run once its event stream stopped. A run stores its last event before its record says ended
 * (a stream that sees the end has been able to read every event), so a record still `active` can
 * lag the `run-ended` event by the end's own commit: read until it is not, within a bound. A run
 * waiting for an approval, or ended, is shown at once.
 */
export async function endedRun(session: RunSession, runId: string): Promise<RunView> {
  const until = Date.now() + END_RECORD_WAIT_MS;
  for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
    const run = await session.run(runId);
    if (run.status !== "active" || Date.now() > until) return run;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
