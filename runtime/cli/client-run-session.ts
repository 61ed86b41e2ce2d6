/**
 * A run followed through the ClawhiveClient: a server's, or a runtime opened in this process on
 * the store. Either way the same API routes answer, so `runs watch` shows the same lines and
 * exits the same way; on the store the runtime opened here drives a run whose approval is
 * decided while it is watched, as a server does.
 */
import type { ClawhiveClient } from "../client/client.js";
import type { Approval } from "../policy/approvals/index.js";
import { currentUser } from "./user.js";
import { ServerError, type StreamedEvent } from "./client.js";
import { serverFlagOf } from "./hints.js";
import type { ApprovalAnswer } from "./run-render.js";
import type { RunRequest, RunSession } from "./run-session.js";
import { approvalFromView, type ApprovalView, type RunView } from "./views.js";

export class ClientRunSession implements RunSession {
  readonly #client: ClawhiveClient;
  readonly serverFlag: string;

  constructor(client: ClawhiveClient) {
    this.#client = client;
    this.serverFlag = serverFlagOf(client);
  }

  async submit(request: RunRequest): Promise<RunView> {
    const body = {
      agent: request.agent,
      task: request.task,
      ...(request.toolCalls.length === 0 ? {} : { tool_calls: request.toolCalls.map((c) => ({ name: c.name, input: c.input })) }),
      ...(request.grants === undefined ? {} : { grants: request.grants }),
      ...(request.conversationId === undefined ? {} : { conversation_id: request.conversationId }),
    };
    return (await this.#client.submitRun(body as Parameters<ClawhiveClient["submitRun"]>[0])) as RunView;
  }

  async run(id: string): Promise<RunView> {
    return (await this.#client.getRun(id)) as RunView;
  }

  events(id: string, options: { after?: number; signal?: AbortSignal }): AsyncIterable<StreamedEvent> {
    return this.#client.runEvents(id, options);
  }

  async approval(id: string): Promise<Approval | undefined> {
    try {
      return approvalFromView((await this.#client.getApproval(id)) as ApprovalView);
    } catch (error) {
      if (error instanceof ServerError && error.status === 403) return undefined;
      throw error;
    }
  }

  async decide(approval: Approval, answer: ApprovalAnswer): Promise<void> {
    // On the store the decision is a person's: one the system cannot name is asked for (--by).
    if (this.serverFlag === "") currentUser();
    await this.#client.decideApproval(approval.id, answer);
  }

  async cancel(id: string): Promise<void> {
    await this.#client.cancelRun(id);
  }

  /** The client is the caller's to close. */
  async close(): Promise<void> {}
}
