/**
 * The two ways `clawhive run` and `clawhive runs watch` reach a run: through a server's API, or
 * through a runtime this process opens on the store (whose own driver runs the ToolCalls). The
 * command drives either the same way, so both modes show the same lines and exit the same way.
 */
import { NotFoundError } from "../errors.js";
import { eventData, runView } from "../api/routes/runs.js";
import type { Approval } from "../policy/approvals/index.js";
import type { PlannedCall } from "../runs/records.js";
import type { Runtime } from "../runtime.js";
import { currentUser } from "./approvals.js";
import { ServerError, segment, type ApiClient, type StreamedEvent } from "./client.js";
import type { ApprovalAnswer } from "./run-render.js";
import { openRuntime } from "./store-path.js";
import { approvalFromView, type ApprovalView, type RunView } from "./views.js";

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

/** Through a server: the server's driver runs the ToolCalls and continues a run once it is decided. */
export class ServerRunSession implements RunSession {
  readonly #api: ApiClient;
  readonly serverFlag: string;

  constructor(api: ApiClient) {
    this.#api = api;
    this.serverFlag = ` --server ${api.target.url}`;
  }

  async submit(request: RunRequest): Promise<RunView> {
    const body = {
      agent: request.agent,
      task: request.task,
      ...(request.toolCalls.length === 0 ? {} : { tool_calls: request.toolCalls.map((c) => ({ name: c.name, input: c.input })) }),
      ...(request.grants === undefined ? {} : { grants: request.grants }),
      ...(request.conversationId === undefined ? {} : { conversation_id: request.conversationId }),
    };
    return (await this.#api.request<{ run: RunView }>("POST", "/v1/runs", { json: body })).run;
  }

  async run(id: string): Promise<RunView> {
    return (await this.#api.get<{ run: RunView }>(`/v1/runs/${segment(id)}`)).run;
  }

  events(id: string, options: { after?: number; signal?: AbortSignal; onRetry?: (error: Error) => void }): AsyncIterable<StreamedEvent> {
    return this.#api.events(id, options);
  }

  async approval(id: string): Promise<Approval | undefined> {
    try {
      return approvalFromView((await this.#api.get<{ approval: ApprovalView }>(`/v1/approvals/${segment(id)}`)).approval);
    } catch (error) {
      if (error instanceof ServerError && error.status === 403) return undefined;
      throw error;
    }
  }

  async decide(approval: Approval, answer: ApprovalAnswer): Promise<void> {
    await this.#api.request("POST", `/v1/approvals/${segment(approval.id)}`, { json: answer });
  }

  async cancel(id: string): Promise<void> {
    await this.#api.request("POST", `/v1/runs/${segment(id)}/cancel`);
  }

  async close(): Promise<void> {}
}

/** How often the store is read for a run's new events (the runtime writes them a moment after they happen). */
const POLL_MS = 50;

/** On the store: a runtime in this process drives the run; its events are read back from the store. */
export class DirectRunSession implements RunSession {
  readonly serverFlag = "";
  readonly #runtime: Runtime;
  /** A failure of the driver running a submitted run (e.g. the store went away): ends the stream. */
  #driveError: unknown;

  private constructor(runtime: Runtime) {
    this.#runtime = runtime;
  }

  static async open(values: Readonly<Record<string, unknown>>): Promise<DirectRunSession> {
    const runtime = await openRuntime(values);
    return new DirectRunSession(runtime);
  }

  async submit(request: RunRequest): Promise<RunView> {
    const { run, settled } = await this.#runtime.submitRun({
      agent: request.agent,
      task: request.task,
      toolCalls: request.toolCalls,
      ...(request.grants === undefined ? {} : { grants: request.grants }),
      ...(request.conversationId === undefined ? {} : { conversationId: request.conversationId }),
    });
    settled.catch((error: unknown) => (this.#driveError = error));
    return this.run(run.id);
  }

  async run(id: string): Promise<RunView> {
    // A run whose end the store refused is not shown as still active: its error says whether
    // its effects happened (effect_committed_store_failed) or nothing did (run_store_failed).
    if (this.#driveError !== undefined) throw this.#driveError;
    const record = await this.#runtime.records.get(id);
    if (!record) throw new NotFoundError(`no run ${id}`);
    return runView(record, this.#runtime) as unknown as RunView;
  }

  /** As the API's event stream does: stored events in order, until `run-ended` (or an ended run read to its end). */
  async *events(id: string, options: { after?: number; signal?: AbortSignal }): AsyncIterable<StreamedEvent> {
    let after = options.after ?? 0;
    for (;;) {
      if (this.#driveError !== undefined) throw this.#driveError;
      if (options.signal?.aborted) return;
      const events = await this.#runtime.events.list(id, { after, limit: 500 });
      for (const event of events) {
        after = event.seq;
        yield { seq: event.seq, type: event.type, data: eventData(event.data) as Record<string, unknown> };
        if (event.type === "run-ended") return;
      }
      if (events.length > 0) continue;
      const record = await this.#runtime.records.get(id);
      if (!record) throw new NotFoundError(`no run ${id}`);
      if (record.status === "ended" && (await this.#runtime.events.list(id, { after, limit: 1 })).length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  async approval(id: string): Promise<Approval | undefined> {
    return this.#runtime.approvals.get(id);
  }

  async decide(approval: Approval, answer: ApprovalAnswer): Promise<void> {
    await this.#runtime.approvals.decide(approval.id, { ...answer, by: currentUser() });
    // This runtime's driver would pick the decision up at its next tick; no need to wait for it.
    void this.#runtime.continueRun(approval.runId).catch(() => undefined);
  }

  async cancel(id: string): Promise<void> {
    await this.#runtime.cancelRun(id);
    const record = await this.#runtime.records.get(id);
    if (record === undefined || record.status === "ended") return;
    // Asked, but no live runtime drives it (it waits for an approval): take it and end it here.
    try {
      await (await this.#runtime.resumeRun(id)).cancel();
    } catch {
      // Another runtime holds it: its driver ends it at its next tick.
    }
  }

  close(): Promise<void> {
    return this.#runtime.close();
  }
}
