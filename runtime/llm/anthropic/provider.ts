import { createRequire } from "node:module";
import type Anthropic from "@anthropic-ai/sdk";

/** The SDK loads with the first request (synchronously, its CommonJS build), not with every runtime. */
let sdk: typeof Anthropic | undefined;
function anthropicSdk(): typeof Anthropic {
  sdk ??= (createRequire(import.meta.url)("@anthropic-ai/sdk") as { default: typeof Anthropic }).default;
  return sdk;
}
import type { LlmRequest, LlmResponse } from "../model.js";
import { apiKey, ClientCache, emitWhole, responseCap, retryOptionsFor, retryPolicy, type ProviderOptions } from "../options.js";
import { ResponseBudget } from "../response-cap.js";
import type { CompleteOptions, LlmProvider } from "../provider.js";
import { withRetries, type RetryPolicy } from "../retry.js";
import { ToolNameMap } from "../tool-names.js";
import { AnthropicStreamAccumulator } from "./stream.js";
import { fromAnthropicMessage, toAnthropicParams } from "./wire.js";

const DEFAULT_BASE_URL = "https://api.anthropic.com";

/** The Anthropic Messages API through @anthropic-ai/sdk, streaming by default. */
export class AnthropicProvider implements LlmProvider {
  readonly provider = "anthropic";
  readonly model: string;
  readonly baseUrl: string;
  #options: ProviderOptions;
  #policy: RetryPolicy;
  #maxResponseBytes: number;
  #clients: ClientCache<Anthropic>;

  constructor(options: ProviderOptions) {
    this.model = options.model;
    this.baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
    this.#options = options;
    this.#policy = retryPolicy(options);
    const cap = responseCap(options);
    this.#maxResponseBytes = cap.maxBytes;
    const fetch = cap.fetch;
    this.#clients = new ClientCache(
      (key) =>
        new (anthropicSdk())({
          // Every credential and URL is given explicitly: the SDK otherwise reads ANTHROPIC_*
          // variables and credential files, and the runtime's keys come only from its secret store.
          // Without a key (a keyless gateway) a placeholder keeps the SDK off its default credential
          // chain (~/.config files, which would then be sent to the gateway); its header is removed.
          apiKey: key ?? "no-key",
          authToken: null,
          webhookKey: null,
          baseURL: options.baseUrl ?? DEFAULT_BASE_URL,
          maxRetries: 0,
          timeout: this.#policy.timeoutMs,
          fetch,
          defaultHeaders: key === undefined ? { ...options.headers, authorization: null } : { ...options.headers },
        }),
    );
  }

  async complete(request: LlmRequest, options: CompleteOptions = {}): Promise<LlmResponse> {
    const label = `anthropic ${this.model}`;
    const client = this.#clients.get(await apiKey(this.#options, label));
    const names = new ToolNameMap(request.tools.map((t) => t.name));
    const params = toAnthropicParams(request, { model: this.model, names });
    let current: AnthropicStreamAccumulator | undefined;
    const attempt = async (signal: AbortSignal) => {
      if (this.#options.stream === false) {
        const whole = fromAnthropicMessage(await client.messages.create(params, { signal, ...(options.headers === undefined ? {} : { headers: options.headers }) }), names);
        new ResponseBudget(this.#maxResponseBytes).addContent(whole.content);
        return emitWhole(whole, options.onText);
      }
      current = new AnthropicStreamAccumulator(names, { budget: new ResponseBudget(this.#maxResponseBytes), ...(options.onText ? { onText: options.onText } : {}) });
      const events = await client.messages.create({ ...params, stream: true }, { signal, ...(options.headers === undefined ? {} : { headers: options.headers }) });
      for await (const event of events) current.add(event);
      return current.finish();
    };
    const { value, attempts } = await withRetries(attempt, retryOptionsFor({ label, policy: this.#policy, provider: this.#options, call: options, canRetry: () => current?.emitted !== true }));
    return { ...value, attempts };
  }
}
