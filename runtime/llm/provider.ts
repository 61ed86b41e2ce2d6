import type { LlmRequest, LlmResponse } from "./model.js";

export interface CompleteOptions {
  /** Cancels the call: the in-flight HTTP request is aborted and `complete` rejects with `llm_aborted`. */
  signal?: AbortSignal;
  /** Each text delta as it streams in (not called for non-streaming providers until the end). */
  onText?: (delta: string) => void;
  /** Extra request headers, e.g. the W3C `traceparent` of the call's span. */
  headers?: Record<string, string>;
  /** Called before each retry, e.g. to log or record it in the trace. */
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  /** The attempt that failed (1-based). */
  attempt: number;
  delayMs: number;
  reason: string;
  status?: number;
}

/**
 * A language model behind one provider's API. One call is one Step's model turn: the request in,
 * the whole response out (streamed internally), retried on 429/5xx, cancelled by the signal.
 */
export interface LlmProvider {
  readonly provider: string;
  readonly model: string;
  /** The API's base URL the calls go to (the audit keeps its host only). */
  readonly baseUrl?: string;
  complete(request: LlmRequest, options?: CompleteOptions): Promise<LlmResponse>;
}
