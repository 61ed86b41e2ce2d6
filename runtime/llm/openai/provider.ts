import { createRequire } from "node:module";
import type OpenAI from "openai";

/** The SDK loads with the first request (synchronously, its CommonJS build), not with every runtime. */
let sdk: typeof OpenAI | undefined;
function openaiSdk(): typeof OpenAI {
  sdk ??= (createRequire(import.meta.url)("openai") as { default: typeof OpenAI }).default;
  return sdk;
}
import type { LlmRequest, LlmResponse } from "../model.js";
import { apiKey, ClientCache, emitWhole, responseCap, retryOptionsFor, retryPolicy, type ProviderOptions } from "../options.js";
import { ResponseBudget } from "../response-cap.js";
import type { CompleteOptions, LlmProvider } from "../provider.js";
import { withRetries, type RetryPolicy } from "../retry.js";
import { ToolNameMap } from "../tool-names.js";
import { OpenAiStreamAccumulator } from "./stream.js";
import { fromOpenAiCompletion, toOpenAiParams } from "./wire.js";

const DEFAULT_BASE_URL = "https://api.openai.com/v1";

export interface OpenAiProviderOptions extends ProviderOptions {
  /** `openai` (api.openai.com) or `openai-compatible` (any other server speaking Chat Completions). */
  flavour?: "openai" | "openai-compatible";
}

/**
 * Chat Completions through the `openai` SDK: OpenAI itself, or any compatible server by
 * `baseUrl` (Ollama, vLLM, LocalAI, Azure OpenAI's v1 API, Gemini's OpenAI-compatible endpoint).
 */
export class OpenAiProvider implements LlmProvider {
  readonly provider: "openai" | "openai-compatible";
  readonly model: string;
  readonly baseUrl: string;
  #options: OpenAiProviderOptions;
  #policy: RetryPolicy;
  #maxResponseBytes: number;
  #clients: ClientCache<OpenAI>;

  constructor(options: OpenAiProviderOptions) {
    this.provider = options.flavour ?? "openai";
    this.model = options.model;
    this.baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
    this.#options = options;
    this.#policy = retryPolicy(options);
    const cap = responseCap(options);
    this.#maxResponseBytes = cap.maxBytes;
    const fetch = cap.fetch;
    this.#clients = new ClientCache(
      (key) =>
        new (openaiSdk())({
          // Everything explicit: the SDK otherwise reads OPENAI_* variables.
          // Local servers (Ollama) need no key, but the SDK insists on one; the header is dropped.
          apiKey: key ?? "no-key",
          adminAPIKey: null,
          organization: null,
          project: null,
          webhookSecret: null,
          baseURL: options.baseUrl ?? DEFAULT_BASE_URL,
          maxRetries: 0,
          timeout: this.#policy.timeoutMs,
          fetch,
          defaultHeaders: key === undefined ? { ...options.headers, authorization: null } : { ...options.headers },
        }),
    );
  }

  async complete(request: LlmRequest, options: CompleteOptions = {}): Promise<LlmResponse> {
    const label = `${this.provider} ${this.model}`;
    const client = this.#clients.get(await apiKey(this.#options, label));
    const names = new ToolNameMap(request.tools.map((t) => t.name));
    // OpenAI refuses max_tokens for reasoning models; compatible servers mostly know only max_tokens.
    const maxTokensField = this.provider === "openai" ? "max_completion_tokens" : "max_tokens";
    const params = toOpenAiParams(request, { model: this.model, names, maxTokensField });
    let current: OpenAiStreamAccumulator | undefined;
    const attempt = async (signal: AbortSignal) => {
      if (this.#options.stream === false) {
        const whole = fromOpenAiCompletion(await client.chat.completions.create(params, { signal, ...(options.headers === undefined ? {} : { headers: options.headers }) }), names);
        new ResponseBudget(this.#maxResponseBytes).addContent(whole.content);
        return emitWhole(whole, options.onText);
      }
      current = new OpenAiStreamAccumulator(names, { budget: new ResponseBudget(this.#maxResponseBytes), ...(options.onText ? { onText: options.onText } : {}) });
      const chunks = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } }, { signal, ...(options.headers === undefined ? {} : { headers: options.headers }) });
      for await (const chunk of chunks) current.add(chunk);
      return current.finish();
    };
    const { value, attempts } = await withRetries(attempt, retryOptionsFor({ label, policy: this.#policy, provider: this.#options, call: options, canRetry: () => current?.emitted !== true }));
    return { ...value, attempts };
  }
}
