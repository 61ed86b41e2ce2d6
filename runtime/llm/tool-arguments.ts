import type { ToolUseBlock } from "./model.js";
import { scanJson, TOOL_INPUT_JSON, type JsonLimits } from "../json/index.js";

const ARGUMENTS_JSON: JsonLimits = { ...TOOL_INPUT_JSON, forbiddenKeys: undefined };

/** Refused arguments are echoed back to the model this far, not whole. */
const RAW_SHOWN = 2_000;

/**
 * A ToolUseBlock from the model's raw argument text. Never throws: invalid JSON, a non-object, or
 * arguments cut off by the token limit give `input: {}` with `input_error` and `raw_input`, which
 * the loop sends back as an error result (`malformedInputResult`) for the model to correct.
 * `cutOff` says the stream stopped inside these arguments (max_tokens): arguments that still parse
 * are kept, others are reported as cut off rather than as invalid JSON.
 */
export function toolUseFromRaw(call: { id: string; name: string }, raw: string, options: { cutOff?: boolean } = {}): ToolUseBlock {
  const block: ToolUseBlock = { type: "tool_use", id: call.id, name: call.name, input: {} };
  // Both APIs send "" for a call without arguments (Anthropic's first input_json_delta is empty).
  if (raw.trim() === "" && !options.cutOff) return block;
  // Bounded before parsing: the input is written out recursively (events, audit, the next
  // request), so JSON nested past the limit is refused here as the model's own mistake.
  // Prototype keys pass: the run refuses those, and audits the refusal, as for any caller.
  const problem = scanJson(raw, ARGUMENTS_JSON, { at: "input" });
  if (problem) return { ...block, input_error: problem.message, raw_input: shortened(raw) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    const why = options.cutOff ? "the arguments were cut off by the max_tokens limit before they were complete" : `invalid JSON: ${(error as Error).message}`;
    return { ...block, input_error: why, raw_input: raw };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    const got = parsed === null ? "null" : Array.isArray(parsed) ? "an array" : `a ${typeof parsed}`;
    return { ...block, input_error: `expected a JSON object, got ${got}`, raw_input: raw };
  }
  return { ...block, input: parsed as Record<string, unknown> };
}

function shortened(raw: string): string {
  return raw.length <= RAW_SHOWN ? raw : `${raw.slice(0, RAW_SHOWN)}… (${raw.length} characters in all)`;
}
