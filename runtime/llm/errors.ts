import { ClawhiveError } from "../errors.js";

/**
 * Why an LLM call failed:
 * - `llm_config`: the provider settings cannot work (no key secret, unknown provider, bad URL);
 * - `llm_auth`: the provider refused the key (401/403);
 * - `llm_bad_request`: the provider refused the request (400/404/413/422: model id, context length);
 * - `llm_rate_limited`: 429 after every attempt, or a Retry-After longer than we wait;
 * - `llm_unavailable`: 5xx (or 408/409) after every attempt;
 * - `llm_connection`: the connection failed or the stream broke after every attempt;
 * - `llm_timeout`: an attempt ran past the request timeout, on every attempt;
 * - `llm_aborted`: the caller's signal fired (a cancelled run);
 * - `llm_bad_response`: the provider answered something that is not its documented format;
 * - `llm_response_too_large`: the answer (or the bytes sent for it) passed `model.max_response_bytes`.
 */
export type LlmErrorCode =
  | "llm_config"
  | "llm_auth"
  | "llm_bad_request"
  | "llm_rate_limited"
  | "llm_unavailable"
  | "llm_connection"
  | "llm_timeout"
  | "llm_aborted"
  | "llm_bad_response"
  | "llm_response_too_large";

const STATUS: Record<LlmErrorCode, number> = {
  llm_config: 500,
  llm_auth: 502,
  llm_bad_request: 502,
  llm_rate_limited: 503,
  llm_unavailable: 502,
  llm_connection: 502,
  llm_timeout: 504,
  // nginx's "client closed request": the caller gave up, nothing is wrong upstream.
  llm_aborted: 499,
  llm_bad_response: 502,
  llm_response_too_large: 502,
};

export class LlmError extends ClawhiveError {
  declare readonly code: LlmErrorCode;
  /** The provider's HTTP status, when it answered. */
  readonly providerStatus: number | undefined;
  /** HTTP attempts made before giving up. */
  readonly attempts: number;

  constructor(code: LlmErrorCode, message: string, options: { providerStatus?: number; attempts?: number; cause?: unknown } = {}) {
    super(code, message, { status: STATUS[code], cause: options.cause });
    this.providerStatus = options.providerStatus;
    this.attempts = options.attempts ?? 0;
  }
}
