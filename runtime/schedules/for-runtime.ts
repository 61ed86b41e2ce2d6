import type { Runtime } from "../runtime.js";
import { Scheduler, type SchedulerOptions } from "./scheduler.js";

/**
 * The Scheduler of `runtime`: its store, clock and node id; firings start runs through
 * `submitRun` with the schedule's captured grant, and read the agents as they are now.
 */
export function openRuntimeScheduler(
  runtime: Runtime,
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
