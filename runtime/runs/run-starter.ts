import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import type { AgentManifest } from "../agents/index.js";
import type { SubmitRunOptions } from "../options.js";
import type { Store } from "../store/index.js";
import type { Run } from "./run.js";

/**
 * What starts a run on behalf of the runtime (a sub-agent spawn, a schedule's firing): the
 * Runtime seen through what those use, so that they need not import the runtime (the runtime
 * imports them). Each adds what only it needs.
 */
export interface RunStarter {
  readonly store: Store;
  readonly mountGuard: MountHostGuard;
  /** Re-reads the agents from the store, so a start sees them as they are now. */
  refreshAgents(): Promise<void>;
  agents(): AgentManifest[];
  submitRun(options: SubmitRunOptions): Promise<{ run: Run; settled: Promise<void> }>;
}
