/**
 * What `clawhive run`, `chat` and `runs watch` ask of a run they follow. One implementation
 * (client-run-session.ts) over the ClawhiveClient: a server's API, or the same routes over a
 * runtime this process opens on the store, so both modes show the same lines and exit alike.
 */
import type { Approval } from "../policy/approvals/index.js";
import type { PlannedCall } from "../runs/records.js";
import type { StreamedEvent } from "./client.js";
import type { ApprovalAnswer } from "./run-render.js";
import type { RunView } from "./views.js";

export interface RunRequest {
  readonly agent: string;
  readonly task: string;
  /** Empty: the agent's model drives the run. */
  readonly toolCalls: readonly PlannedCall[];
  readonly grants?: Record<string, unknown>;
  /** Continue this conversation (a model-driven run). */
  readonly conversationId?: string;
}

export interface RunSession {
  /** `--server URL` when the session goes through one: appended to the commands it suggests. */
  readonly serverFlag: string;
  submit(request: RunRequest): Promise<RunView>;
  run(id: string): Promise<RunView>;
  /** The run's events after `after`, to its end. */
  events(id: string, options: { after?: number; signal?: AbortSignal; onRetry?: (error: Error) => void }): AsyncIterable<StreamedEvent>;
  /** The approval with its full context; undefined when this session may not read approvals (a client token). */
  approval(id: string): Promise<Approval | undefined>;
  decide(approval: Approval, answer: ApprovalAnswer): Promise<void>;
  cancel(id: string): Promise<void>;
  close(): Promise<void>;
}
