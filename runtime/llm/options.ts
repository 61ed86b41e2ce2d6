import { LlmError } from "./errors.js";
import { proxiedFetch, type Fetch } from "./http.js";
import { cappedFetch, DEFAULT_MAX_RESPONSE_BYTES, WIRE_FACTOR } from "./response-cap.js";
import { responseText, type LlmResponse } from "./model.js";
import type { CompleteOptions } from "./provider.js";
import { DEFAULT_RETRY_POLICY, type RetryOptions, type RetryPolicy, type Sleep } from "./retry.js";

/** What every adapter is built from; `createProvider` fills it from an agent manifest's model block. */
export interface ProviderOptions {
  /** The model id (for Azure, the deployment name). */
  model: string;
  /** The API's base URL; for OpenAI-compatible servers including `/v1` (e.g. http://localhost:11434/v1). */
  baseUrl?: string;
  /** The name of the stored secret holding the API key (never the key). */
  apiKeySecret?: string;
  /** Reads a secret on the main thread (`Runtime.secretValue`); called on every call, so a rotated key is picked up. */
  secretValue?: (name: string) => Promise<string>;
  /** Outbound HTTP proxy, e.g. http://user:pass@proxy.internal:3128. */
  proxyUrl?: string;
  /** Extra, non-secret headers for every request (e.g. an API gateway's routing header). */
  headers?: Record<string, string>;
  /** Stream responses (default true). Some OpenAI-compatible servers stream tool calls poorly. */
  stream?: boolean;
  /** The answer's bytes (text and tool calls) at most; the wire bytes at most 64 times that. Default 1 MiB. */
  maxResponseBytes?: number;
  retry?: Partial<RetryPolicy>;
  /** Tests: a fake sleep and jitter source. */
  sleep?: Sleep;
  random?: () => number;
}

/** The answer cap of `options`, checked; and a fetch that caps every response body by it. */
export function responseCap(options: ProviderOptions): { maxBytes: number; fetch: Fetch } {
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new LlmError("llm_config", `max_response_bytes: expected a whole number of bytes of at least 1, got ${maxBytes}`);
  }
  return { maxBytes, fetch: cappedFetch(proxiedFetch(options.proxyUrl), maxBytes * WIRE_FACTOR) };
}

export function retryPolicy(options: ProviderOptions): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new LlmError("llm_config", `retry.maxAttempts: expected a whole number of at least 1, got ${policy.maxAttempts}`);
  }
  return policy;
}

/** The API key, read from the secret store through `secretValue`; undefined when no secret is named. */
export async function apiKey(options: ProviderOptions, label: string): Promise<string | undefined> {
  if (options.apiKeySecret === undefined) return undefined;
  if (options.secretValue === undefined) {
    throw new LlmError("llm_config", `${label}: api_key_secret ${options.apiKeySecret} is set but no secret reader was given`);
  }
  try {
    return await options.secretValue(options.apiKeySecret);
  } catch (cause) {
    throw new LlmError("llm_config", `${label}: cannot read secret ${options.apiKeySecret}: store it with \`clawhive secret set ${options.apiKeySecret}\``, { cause });
  }
}

/** Remembers the client built for the last key, so a key change (rotation) builds a new one. */
export class ClientCache<C> {
  #key: string | undefined;
  #client: C | undefined;
  constructor(readonly build: (key: string | undefined) => C) {}

  get(key: string | undefined): C {
    if (this.#client === undefined || key !== this.#key) {
      this.#client = this.build(key);
      this.#key = key;
    }
    return this.#client;
  }
}

/** The retry options of one `complete` call. */
export function retryOptionsFor(options: { label: string; policy: RetryPolicy; provider: ProviderOptions; call: CompleteOptions; canRetry: () => boolean }): RetryOptions {
  const { label, policy, provider, call, canRetry } = options;
  return {
    policy,
    label,
    canRetry,
    ...(call.signal ? { signal: call.signal } : {}),
    ...(call.onRetry ? { onRetry: call.onRetry } : {}),
    ...(provider.sleep ? { sleep: provider.sleep } : {}),
    ...(provider.random ? { random: provider.random } : {}),
  };
}

/** A non-streamed response's text, handed to `onText` in one piece so callers see the same calls. */
export function emitWhole(response: Omit<LlmResponse, "attempts">, onText: ((delta: string) => void) | undefined): Omit<LlmResponse, "attempts"> {
  const whole = responseText(response);
  if (onText && whole !== "") onText(whole);
  return response;
}
