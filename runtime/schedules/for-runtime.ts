import type { RunStarter } from "../runs/run-starter.js";
import type { Clock } from "../store/index.js";
import { Scheduler, type SchedulerOptions } from "./scheduler.js";

/**
 * What firings need of the runtime: the Runtime, seen through what they use (the runtime
 * imports this file; this file does not import the runtime).
 */
export interface ScheduledRuntime extends RunStarter {
  readonly clock: Clock;
  readonly node: string;
}

/**
 * The Scheduler of `runtime`: its store, clock and node id; firings start runs through
 * `submitRun` with the schedule's captured grant, and read the agents as they are now.
 */
export function openRuntimeScheduler(
  runtime: ScheduledRuntime,
  options: Pick<SchedulerOptions, "missedAfterMs" | "pollMs" | "onError" | "claimTimeoutMs"> = {},
): Promise<Scheduler> {
  return Scheduler.open({
    ...options,
    store: runtime.store,
    clock: runtime.clock,
    node: runtime.node,
    mountGuard: runtime.mountGuard,
    agents: async () => {
      await runtime.refreshAgents();
      return runtime.agents();
    },
    submit: async (input) => {
      const { run, settled } = await runtime.submitRun(input);
      // The firing is done once the run is recorded; the run goes on (and may wait for a person).
      settled.catch(() => undefined);
      return { runId: run.id };
    },
  });
}
