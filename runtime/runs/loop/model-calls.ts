import type { AuditErrorInfo, AuditLog, ModelCallInput } from "../../audit/index.js";
import { LlmError, type LlmProvider, type LlmRequest, type LlmResponse } from "../../llm/index.js";
import type { Run } from "../run.js";
import type { ModelCallIntent } from "./state.js";
import { modelCallSpan } from "../../telemetry/run-spans.js";
import { TextEvents } from "./text-events.js";

/**
 * The audit of one drive's model calls. A model call sends the prompt off the machine, so each
 * one that ends — answered, failed or cancelled — becomes a `model_call` record: its shape
 * (model, counts, tool names, usage, attempts), never the messages themselves.
 *
 * The record is deferred on the audit log's linear queue and not awaited on its own: a Step pays
 * for no extra commit, because the record is written with the Step's ToolCall. `settle()`
 * flushes and waits for every record before the run's result is reported. Fail closed: once a record could not be written, no
 * further prompt is sent, and a run that would complete fails instead.
 */
export class ModelCallAudit {
  readonly #audit: AuditLog;
  readonly #run: Run;
  readonly #now: () => number;
  #pending: Promise<void>[] = [];
  #failure: Error | undefined;

  constructor(audit: AuditLog, run: Run, options: { now: () => number }) {
    this.#audit = audit;
    this.#run = run;
    this.#now = options.now;
  }

  /** `provider.complete`, recorded when it ends; `silent`: its text is not streamed as the run's text (a compaction's summary). */
  async complete(provider: LlmProvider, request: LlmRequest, options: { signal: AbortSignal; stepId: string; silent?: boolean }): Promise<LlmResponse> {
    if (this.#failure !== undefined) throw this.#failure;
    const startAt = this.#now();
    const call = { provider, request, stepId: options.stepId, startAt };
    let response: LlmResponse;
    const span = modelCallSpan(this.#run, options.stepId, provider, request);
    // The text is shown while the model writes it; the record below stays the whole call's.
    const streamed = new TextEvents((text) => {
      if (options.silent !== true) this.#run.recordText(options.stepId, text);
    });
    try {
      response = await provider.complete(request, { signal: options.signal, headers: span.headers, onText: streamed.add });
      streamed.flush();
      span.end({ response });
    } catch (error) {
      streamed.flush();
      span.end({ error });
      const failed = failureOf(error, options.signal);
      this.#record({ ...this.#shape(call), attempts: failed.attempts, status: "error", error: failed.error });
      throw error;
    }
    this.#record({
      ...this.#shape(call),
      inputTokens: response.usage.input_tokens,
      outputTokens: response.usage.output_tokens,
      stopReason: response.stop_reason,
      attempts: response.attempts,
      status: "ok",
    });
    return response;
  }

  /**
   * A model call whose intent the Step journal holds without the run having gone past it: its
   * node stopped (died, closed, lost its lease) while the prompt was out, or after the answer
   * came but before it was journaled. A model call has no effect to repeat, so the model is
   * asked again; that is recorded first, durably, as a `model_call` record of the cut-off Step:
   * `interrupted` when no outcome was ever recorded for it, `answer_lost` when its answer was.
   * A call whose failure is on record (`failed`) needs no further record.
   */
  async interrupted(provider: LlmProvider, call: ModelCallIntent): Promise<"interrupted" | "answer_lost" | "failed"> {
    await this.#audit.flush();
    const page = await this.#audit.query({ runId: this.#run.id, kind: "model_call", since: call.since, limit: 200 });
    const outcomes = page.records.filter((record) => record.stepId === call.stepId);
    // It ended without an answer (failed, cancelled by a closing node) and that is on record.
    if (outcomes.length > 0 && outcomes.every((record) => record.status !== "ok")) return "failed";
    const answered = outcomes.length > 0;
    const code = answered ? "answer_lost" : "interrupted";
    const who = call.node === undefined ? "its node" : `its node (${call.node})`;
    const message = answered
      ? `${who} stopped after the model answered but before the answer was journaled; the model is asked again`
      : `${who} stopped while the prompt was out and no outcome was recorded; the model is asked again`;
    await this.#audit.appendModelCall({
      ...this.#who(provider, call.stepId),
      messages: call.messages ?? 0,
      tools: call.tools ?? [],
      maxTokens: call.maxTokens ?? 0,
      attempts: 0,
      startAt: call.since,
      status: "error",
      error: { code, message },
    });
    // Durable before the model is asked again (the record is deferred on the queue).
    await this.#audit.flush();
    return code;
  }

  /** Waits for every record queued so far; resolves to the first write failure, if any. */
  async settle(): Promise<Error | undefined> {
    while (this.#pending.length > 0) {
      const pending = this.#pending;
      this.#pending = [];
      // Model-call records start no commit of their own (see AuditLog.appendModelCall).
      await this.#audit.flush();
      await Promise.all(pending);
    }
    return this.#failure;
  }

  #record(input: ModelCallInput): void {
    // Not awaited here (see the class comment); the rejection is kept, never left unhandled.
    const queued = this.#audit.appendModelCall(input).then(
      () => undefined,
      (error: unknown) => {
        this.#failure ??= error instanceof Error ? error : new Error(String(error));
      },
    );
    this.#pending.push(queued);
  }

  #shape(call: { provider: LlmProvider; request: LlmRequest; stepId: string; startAt: number }): Omit<ModelCallInput, "attempts" | "status"> {
    const { request } = call;
    return {
      ...this.#who(call.provider, call.stepId),
      messages: request.messages.length,
      tools: request.tools.map((tool) => tool.name),
      maxTokens: request.max_tokens,
      startAt: call.startAt,
    };
  }

  /** Whose model call it is: the run, its Step, and the provider asked. */
  #who(provider: LlmProvider, stepId: string) {
    const run = this.#run;
    return {
      traceId: run.traceId,
      taskId: run.taskId,
      runId: run.id,
      stepId,
      parentRunId: run.parentRunId,
      agent: run.agent.name,
      provider: providerApi(provider.provider),
      model: provider.model,
      baseUrl: provider.baseUrl ?? run.agent.model.base_url ?? null,
    };
  }
}

/** The API the call spoke: an OpenAI-compatible server speaks OpenAI's. */
function providerApi(provider: string): string {
  return provider === "openai-compatible" ? "openai" : provider;
}

/**
 * The record's error: the llm room's codes without their prefix (`rate_limited`, `timeout`,
 * `unavailable`, …), and `cancelled` for a call the run's signal aborted.
 */
function failureOf(error: unknown, signal: AbortSignal): { attempts: number; error: AuditErrorInfo } {
  const message = error instanceof Error ? error.message : String(error);
  // Aborted by the run timeout (see RunLoop.drive) rather than by a cancel.
  const timedOut = signal.aborted && (signal.reason as { name?: unknown } | undefined)?.name === "TimeoutError";
  if (error instanceof LlmError) {
    const code = error.code === "llm_aborted" ? (timedOut ? "timeout" : "cancelled") : error.code.replace(/^llm_/, "");
    return { attempts: error.attempts, error: { code, message } };
  }
  return { attempts: 0, error: { code: timedOut ? "timeout" : signal.aborted ? "cancelled" : "provider_error", message } };
}
