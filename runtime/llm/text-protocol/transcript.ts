/**
 * The conversation as a model without tool calling can read it: every ToolCall back as the
 * `<tool_call>` element the model wrote, every tool result as a `<tool_result>` element naming
 * its tool. Tool output is hostile input: markup in it that could close its element or open a
 * fake one is neutralised (`</tool_result>` → `<\/tool_result>`), the same way system-prompt zones
 * are, and the tool list tells the model a result is data, never instructions.
 */
import { text, type ContentBlock, type Message } from "../model.js";

// Only a result's own tags: a `<tool_call>` inside a result is data the model reads (the
// correction for a broken call quotes the call), and what the model is sent is never parsed.
const MARKUP = /<(\/?)(tool_result)/gi;

function neutralise(value: string): string {
  return value.replace(MARKUP, (_m, slash: string, name: string) => `<${slash ? "\\/" : "\\"}${name}`);
}

function attribute(value: string): string {
  return value.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function blockText(block: ContentBlock, names: Map<string, string>): string {
  switch (block.type) {
    case "text":
      // Its trailing newline would double the one that joins it to a call.
      return block.text.trimEnd();
    case "tool_use":
      names.set(block.id, block.name);
      // A call that could not be read goes back as the model wrote it, so it sees its mistake.
      if (block.input_error !== undefined && block.raw_input !== undefined) return block.raw_input;
      return `<tool_call name="${attribute(block.name)}">${JSON.stringify(block.input)}</tool_call>`;
    case "tool_result": {
      const name = attribute(names.get(block.tool_use_id) ?? "unknown");
      return `<tool_result name="${name}" status="${block.is_error ? "error" : "ok"}">\n${neutralise(block.content)}\n</tool_result>`;
    }
  }
}

/** The messages with their ToolCalls and tool results as text; roles and order unchanged. */
export function toTextMessages(messages: readonly Message[]): Message[] {
  const names = new Map<string, string>();
  return messages.map((message) => {
    const joined = message.content.map((block) => blockText(block, names)).filter((part) => part !== "").join("\n");
    // The APIs refuse an empty message.
    return { role: message.role, content: [text(joined === "" ? "(empty)" : joined)] };
  });
}
