import { AnthropicProvider } from "./anthropic/provider.js";
import { LlmError } from "./errors.js";
import { OpenAiProvider } from "./openai/provider.js";
import type { ProviderOptions } from "./options.js";
import type { LlmProvider } from "./provider.js";

/** The fields of an agent manifest's `model` block that choose and reach the provider. */
export interface ModelSettings {
  provider: "anthropic" | "openai" | "openai-compatible";
  id: string;
  base_url?: string | undefined;
  api_key_secret?: string | undefined;
  stream?: boolean | undefined;
  max_response_bytes?: number | undefined;
}

/** The context window assumed when the manifest gives no `model.context_tokens`. */
export const DEFAULT_CONTEXT_TOKENS = 128_000;

/** Runtime-wide settings: how to read secrets, the outbound proxy, retries, timeouts. */
export type CreateProviderOptions = Omit<ProviderOptions, "model" | "baseUrl" | "apiKeySecret">;

/** The provider an agent manifest's `model` block names. Nothing is fetched until the first call. */
export function createProvider(model: ModelSettings, options: CreateProviderOptions = {}): LlmProvider {
  if (model.api_key_secret === undefined && model.provider !== "openai-compatible" && model.base_url === undefined) {
    throw new LlmError("llm_config", `model.api_key_secret: required for provider ${model.provider} (the name of the secret holding its API key)`);
  }
  const settings: ProviderOptions = {
    ...options,
    model: model.id,
    ...(model.base_url === undefined ? {} : { baseUrl: model.base_url }),
    ...(model.api_key_secret === undefined ? {} : { apiKeySecret: model.api_key_secret }),
    ...(model.stream === undefined ? {} : { stream: model.stream }),
    ...(model.max_response_bytes === undefined ? {} : { maxResponseBytes: model.max_response_bytes }),
  };
  switch (model.provider) {
    case "anthropic":
      return new AnthropicProvider(settings);
    case "openai":
    case "openai-compatible":
      return new OpenAiProvider({ ...settings, flavour: model.provider });
    default:
      throw new LlmError("llm_config", `model.provider: unknown provider ${String((model as { provider: unknown }).provider)}`);
  }
}
