import { EMPTY, invalid, requireText, runColumns } from "./body.js";
import type { BodyContext } from "./body.js";
import { storedObject, type JsonValue } from "./json.js";
import type { RecordBody } from "./schema.js";
import type { ModelCallInput, ModelCallSummary } from "./types.js";

// A model call becomes one record: proxy `llm`, host_function the provider, and arguments that
// describe the call's shape only. The input type has no field for message content, and only
// these keys are written, so a prompt (mail, documents, tool results, secrets) can never reach
// the table through here; the usual secret redaction still runs over what is written.

/** The proxy name model_call records carry. */
export const MODEL_CALL_PROXY = "llm";

export function modelCallBody(input: ModelCallInput, context: BodyContext): RecordBody {
  requireText("traceId", input.traceId);
  requireText("runId", input.runId);
  requireText("agent", input.agent);
  requireText("provider", input.provider);
  requireText("model", input.model);
  if (input.status !== "ok" && input.status !== "error") throw invalid("status", "must be ok or error");
  if (!Array.isArray(input.tools) || input.tools.some((t) => typeof t !== "string")) throw invalid("tools", "must be an array of tool names");
  const count = (field: string, value: number | null | undefined): number | null => {
    if (value === undefined || value === null) return null;
    if (!Number.isSafeInteger(value) || value < 0) throw invalid(field, "must be a non-negative integer");
    return value;
  };
  if (!Number.isFinite(input.startAt)) throw invalid("startAt", "must be a finite number of milliseconds");
  const { redactor } = context;
  const secrets = redactor.secrets();
  const args: JsonValue = {
    model: input.model,
    base_url: baseUrlHost(input.baseUrl),
    messages: count("messages", input.messages),
    tools: [...input.tools],
    max_tokens: count("maxTokens", input.maxTokens),
    input_tokens: count("inputTokens", input.inputTokens),
    output_tokens: count("outputTokens", input.outputTokens),
    stop_reason: input.stopReason ?? null,
    attempts: count("attempts", input.attempts),
  };
  const stored = redactor.args(args, { kind: "model_call", proxy: MODEL_CALL_PROXY, function: input.provider, tool: null }, secrets);
  const error = input.status === "error" ? (input.error ?? { code: "error", message: "the model call failed" }) : null;
  return {
    ...EMPTY,
    kind: "model_call",
    status: input.status,
    decision: "allow",
    ...runColumns(input, redactor, secrets),
    proxy: MODEL_CALL_PROXY,
    host_function: redactor.name(input.provider, secrets),
    args: stored.text,
    args_bytes: stored.bytes,
    args_truncated: stored.truncated ? 1 : 0,
    start_at: Math.min(Math.trunc(input.startAt), context.at),
    end_at: context.at,
    error_code: error === null ? null : redactor.name(String(error.code), secrets),
    error_message: error === null ? null : redactor.text(String(error.message), secrets),
  };
}

/**
 * Host and port of a base URL: the path may carry a deployment or tenant name and the query a
 * key (`?api-key=…`, `?key=…`), the userinfo a password — none of it belongs in the log.
 */
export function baseUrlHost(baseUrl: string | null | undefined): string | null {
  if (baseUrl == null || baseUrl === "") return null;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw invalid("baseUrl", "must be an absolute URL");
  }
  return url.host === "" ? null : url.host;
}

/** A stored model_call record's arguments, read back; null when they are not what this module writes. */
export function parseModelCall(args: string | null): ModelCallSummary | null {
  const o = storedObject(args);
  if (o === null) return null;
  const num = (value: unknown): number | null => (typeof value === "number" ? value : null);
  const str = (value: unknown): string | null => (typeof value === "string" ? value : null);
  return {
    model: str(o.model) ?? "",
    baseUrl: str(o.base_url),
    messages: num(o.messages) ?? 0,
    tools: Array.isArray(o.tools) ? o.tools.filter((t): t is string => typeof t === "string") : [],
    maxTokens: num(o.max_tokens) ?? 0,
    inputTokens: num(o.input_tokens),
    outputTokens: num(o.output_tokens),
    stopReason: str(o.stop_reason),
    attempts: num(o.attempts) ?? 0,
  };
}
