/**
 * The llm room: the unified message model, the provider adapters (Anthropic Messages, OpenAI
 * Chat Completions and compatible servers), retries, and the context budget. Nothing
 * provider-specific leaves this folder.
 */
export * from "./model.js";
export type { CompleteOptions, LlmProvider, RetryInfo } from "./provider.js";
export { createProvider, DEFAULT_CONTEXT_TOKENS } from "./create.js";
export type { CreateProviderOptions, ModelSettings } from "./create.js";
export type { ProviderOptions } from "./options.js";
export { AnthropicProvider } from "./anthropic/provider.js";
export { OpenAiProvider } from "./openai/provider.js";
export type { OpenAiProviderOptions } from "./openai/provider.js";
export { LlmError } from "./errors.js";
export type { LlmErrorCode } from "./errors.js";
export { DEFAULT_RETRY_POLICY } from "./retry.js";
export type { RetryPolicy, Sleep } from "./retry.js";
export { ToolNameMap, toWireToolName, fromWireToolName } from "./tool-names.js";
export * from "./context/index.js";
export * from "./text-protocol/index.js";
export * from "./compaction/index.js";
