/** How the unified model is written for each API: the rules each documents. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { assistant, text, toolResult, toolUse, user, type LlmRequest } from "../../runtime/llm/index.js";
import { toAnthropicParams } from "../../runtime/llm/anthropic/wire.js";
import { toOpenAiParams, stopReason as openAiStop } from "../../runtime/llm/openai/wire.js";
import { stopReason as anthropicStop } from "../../runtime/llm/anthropic/wire.js";
import { ToolNameMap } from "../../runtime/llm/tool-names.js";
import { malformedInputResult, toolUses, responseText } from "../../runtime/llm/model.js";
import { toolUseFromRaw } from "../../runtime/llm/tool-arguments.js";

const base: LlmRequest = { system: "Be brief.", messages: [], tools: [], max_tokens: 100, temperature: 0.2 };

test("anthropic: tool_results first in a user turn, empty text dropped, no sampling parameters", () => {
  const messages = [user("go"), assistant(text(""), toolUse("t1", "files.read_file", { path: "a" })), user(text("and then?"), toolResult("t1", "A"))];
  const params = toAnthropicParams({ ...base, messages }, { model: "claude-x", names: new ToolNameMap([]) });
  assert.equal(params.system, "Be brief.");
  assert.equal("temperature" in params, false);
  assert.deepEqual(params.messages, [
    { role: "user", content: [{ type: "text", text: "go" }] },
    { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "files__read_file", input: { path: "a" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "A" }, { type: "text", text: "and then?" }] },
  ]);
  assert.equal("tools" in params, false, "no tools key when there are none");
});

test("openai: system first, tool messages right after the calls, then the user's text; max token field by flavour", () => {
  const messages = [user("go"), assistant("Sure.", toolUse("c1", "files.read_file", { path: "a" })), user(toolResult("c1", "boom", { isError: true }), "next")];
  const names = new ToolNameMap([]);
  const params = toOpenAiParams({ ...base, messages }, { model: "gpt-x", names, maxTokensField: "max_completion_tokens" });
  assert.deepEqual(params.messages, [
    { role: "system", content: "Be brief." },
    { role: "user", content: "go" },
    { role: "assistant", content: "Sure.", tool_calls: [{ id: "c1", type: "function", function: { name: "files__read_file", arguments: '{"path":"a"}' } }] },
    { role: "tool", tool_call_id: "c1", content: "Error: boom" },
    { role: "user", content: "next" },
  ]);
  assert.equal(params.max_completion_tokens, 100);
  assert.equal(params.temperature, 0.2);
  const compatible = toOpenAiParams({ ...base, messages }, { model: "llama3", names, maxTokensField: "max_tokens" });
  assert.equal(compatible.max_tokens, 100);
  assert.equal("max_completion_tokens" in compatible, false);
});

test("stop reasons map to the unified five", () => {
  const openai: Array<[string | null, boolean, string]> = [
    ["stop", false, "end_turn"],
    ["stop", true, "tool_use"],
    ["tool_calls", true, "tool_use"],
    ["function_call", true, "tool_use"],
    ["length", false, "max_tokens"],
    ["length", true, "max_tokens"],
    ["content_filter", false, "other"],
    [null, false, "other"],
  ];
  for (const [reason, calls, expected] of openai) assert.equal(openAiStop(reason, calls), expected, `${reason} ${calls}`);
  const anthropic: Array<[string | null, string]> = [
    ["end_turn", "end_turn"],
    ["tool_use", "tool_use"],
    ["max_tokens", "max_tokens"],
    ["stop_sequence", "stop_sequence"],
    ["pause_turn", "other"],
    ["refusal", "other"],
    [null, "other"],
  ];
  for (const [reason, expected] of anthropic) assert.equal(anthropicStop(reason), expected, String(reason));
});

test("tool arguments: empty means {}, the rest must be a JSON object", () => {
  const call = { id: "i", name: "t" };
  assert.deepEqual(toolUseFromRaw(call, ""), toolUse("i", "t", {}));
  assert.deepEqual(toolUseFromRaw(call, '{"a":1}'), toolUse("i", "t", { a: 1 }));
  assert.deepEqual(toolUseFromRaw(call, '{"a":1}', { cutOff: true }), toolUse("i", "t", { a: 1 }), "complete arguments survive a cut");
  assert.match(toolUseFromRaw(call, "", { cutOff: true }).input_error ?? "", /cut off/);
  assert.match(toolUseFromRaw(call, "null").input_error ?? "", /got null/);
  assert.match(toolUseFromRaw(call, "{'a': 1}").input_error ?? "", /^invalid JSON/);
});

test("malformedInputResult tells the model what it sent and what to do", () => {
  const bad = toolUseFromRaw({ id: "call_9", name: "files.read_file" }, '{"path": ');
  const result = malformedInputResult(bad);
  assert.equal(result.tool_use_id, "call_9");
  assert.equal(result.is_error, true);
  assert.match(result.content, /files\.read_file were not valid: invalid JSON/);
  assert.match(result.content, /You sent: \{"path": /);
  assert.match(result.content, /Call the tool again/);
});

test("constructors and readers", () => {
  const r = { content: [text("a"), toolUse("1", "x.y"), text("b")] };
  assert.deepEqual(toolUses(r), [toolUse("1", "x.y")]);
  assert.equal(responseText(r), "ab");
  assert.deepEqual(user("hi", toolResult("1", "r")), { role: "user", content: [text("hi"), { type: "tool_result", tool_use_id: "1", content: "r", is_error: false }] });
});

test("the system prompt and tool descriptions name tools as the model is offered them", () => {
  const tools = [
    { name: "files.read_file", description: "Read a file; files.list_dir finds it.", input_schema: { type: "object" } },
    { name: "files.list_dir", description: "List a folder.", input_schema: { type: "object" } },
  ];
  const system = "Use files.read_file (or `files.list_dir`). Not files.read_filex, myfiles.read_file or web.fetch.";
  const expected = "Use files__read_file (or `files__list_dir`). Not files.read_filex, myfiles.read_file or web.fetch.";
  const anthropic = toAnthropicParams({ ...base, system, tools }, { model: "claude-x", names: new ToolNameMap([]) });
  assert.equal(anthropic.system, expected);
  assert.equal((anthropic.tools?.[0] as { description?: string } | undefined)?.description, "Read a file; files__list_dir finds it.");
  const openai = toOpenAiParams({ ...base, system, tools }, { model: "gpt-x", names: new ToolNameMap([]), maxTokensField: "max_tokens" });
  assert.deepEqual(openai.messages[0], { role: "system", content: expected });
  assert.equal((openai.tools?.[0] as { function: { description: string } }).function.description, "Read a file; files__list_dir finds it.");
  // Control: with no tools offered, the text is sent as written.
  assert.equal(toAnthropicParams({ ...base, system }, { model: "claude-x", names: new ToolNameMap([]) }).system, system);
});
