/**
 * A fake Anthropic Messages server (POST /v1/messages), speaking the documented format: a
 * `message` object, or with `stream: true` the SSE events `message_start`, per block
 * `content_block_start` / `content_block_delta` (`text_delta`, `input_json_delta`) /
 * `content_block_stop`, a `ping`, `message_delta` (stop_reason, usage) and `message_stop`, each
 * as `event: <type>\ndata: <json>\n\n`. Errors are `{"type":"error","error":{"type","message"}}`
 * with a `request-id` header. It refuses what the API refuses: no key (it takes `x-api-key` or
 * `Authorization: Bearer`, since @anthropic-ai/sdk 1.x sends the key as a Bearer token), no
 * `anthropic-version`, bad tool names, a tool_result that is not first in its user turn or does
 * not answer a tool_use of the previous assistant turn, empty text blocks, and — under
 * anthropic-version 2026-10-21 — sampling parameters (temperature, top_p, top_k).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ServerResponse } from "node:http";
import { FakeHttpServer, fragments, untilClosed, writeChunks, type Exchange } from "./server.js";
import { argumentText, fakeId, roughTokens, type FakeReply } from "./replies.js";
import { LLM_STREAMS } from "./fixtures.js";

const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export interface FakeAnthropicOptions {
  /** Accept requests without a key (a keyless gateway in front of the API). */
  keyless?: boolean;
  chunkDelayMs?: number;
}

type Block = { type?: string; text?: string; id?: string; name?: string; tool_use_id?: string };
interface MessagesBody {
  model?: unknown;
  max_tokens?: unknown;
  messages?: Array<{ role?: string; content?: string | Block[] }>;
  tools?: Array<{ name?: string; input_schema?: { type?: string } }>;
  stream?: boolean;
  temperature?: unknown;
  top_p?: unknown;
  top_k?: unknown;
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

export class FakeAnthropic extends FakeHttpServer<FakeReply> {
  constructor(readonly options: FakeAnthropicOptions = {}) {
    super((exchange) => this.#answer(exchange));
  }

  /** The base URL an Anthropic client takes (the SDK appends `/v1/messages`). */
  get baseUrl(): string {
    return this.url;
  }

  async #answer(exchange: Exchange<FakeReply>): Promise<void> {
    const { req, reply, res } = exchange;
    if (req.method !== "POST" || req.path.split("?")[0] !== "/v1/messages") return error(res, { status: 404, message: `Not found: ${req.method} ${req.path}` });
    const bearer = typeof req.headers.authorization === "string" && /^Bearer \S+$/.test(req.headers.authorization);
    if (!this.options.keyless && typeof req.headers["x-api-key"] !== "string" && !bearer) return error(res, { status: 401, message: "x-api-key header is required" });
    const version = req.headers["anthropic-version"];
    if (typeof version !== "string") return error(res, { status: 400, message: "anthropic-version: header is required" });
    const body = req.body as MessagesBody | undefined;
    const problem = checkBody(body, version);
    if (problem) return error(res, { status: 400, message: problem });
    if (reply === undefined) return error(res, { status: 500, message: "fake: no scripted reply left" });
    if (reply.type === "error") return error(res, { status: reply.status, message: reply.message ?? `fake error ${reply.status}`, headers: reply.headers });
    const model = String(body?.model);
    if (body?.stream) return this.#stream(exchange, { body, reply, model });
    if (reply.type === "json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(reply.body));
      return;
    }
    if (reply.type === "fixture" || reply.type === "hang" || reply.type === "drop") return error(res, { status: 500, message: `fake: ${reply.type} needs a streaming request` });
    const { blocks, stop } = parts(reply);
    // The non-streaming API parses the model's arguments itself; only a stream can carry broken ones.
    if (blocks.some((b) => b.type === "tool_use" && !parsesAsObject(b.json))) return error(res, { status: 500, message: "fake: malformed tool arguments need a streaming request" });
    res.writeHead(200, { "content-type": "application/json", "request-id": fakeId("req_") });
    res.end(
      JSON.stringify({
        id: fakeId("msg_"),
        type: "message",
        role: "assistant",
        model,
        content: blocks.map((b) => (b.type === "text" ? { type: "text", text: b.text } : { type: "tool_use", id: b.id, name: b.name, input: JSON.parse(b.json) as unknown })),
        stop_reason: stop,
        stop_sequence: null,
        usage: { input_tokens: roughTokens(body?.messages), cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: roughTokens(blocks) },
      }),
    );
  }

  async #stream(exchange: Exchange<FakeReply>, parsed: { body: MessagesBody; reply: Exclude<FakeReply, { type: "error" }>; model: string }): Promise<void> {
    const { res, signal } = exchange;
    const { body, reply, model } = parsed;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": fakeId("req_") });
    if (reply.type === "json") {
      res.end(`event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "api_error", message: "fake: a json reply needs a non-streaming request" } })}\n\n`);
      return;
    }
    if (reply.type === "fixture") {
      const bytes = await readFile(join(LLM_STREAMS, reply.file));
      // The recorded files end without the blank line that terminates the last SSE event (the
      // recording stripped it; the live API sends it). Without it a conforming parser discards
      // that event, so the fake completes the framing on the wire; the bytes stay unchanged.
      const text = bytes.toString("utf8");
      res.end(text.endsWith("\n\n") ? bytes : Buffer.concat([bytes, Buffer.from(text.endsWith("\n") ? "\n" : "\n\n")]));
      return;
    }
    const event = (data: { type: string; [field: string]: unknown }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
    const input = roughTokens(body.messages);
    const start = event({
      type: "message_start",
      message: { id: fakeId("msg_"), type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } },
    });
    const delay = this.options.chunkDelayMs ?? 0;
    if (reply.type === "hang" || reply.type === "drop") {
      const first = [start, event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })];
      if (reply.text) first.push(event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: reply.text } }));
      await writeChunks(res, first, { signal, delayMs: delay });
      if (reply.type === "drop") {
        res.socket?.destroy();
        return;
      }
      await untilClosed(signal);
      return;
    }
    const { blocks, stop } = parts(reply);
    const out = [start, `event: ping\ndata: {"type": "ping"}\n\n`];
    let holdAt: number | undefined;
    blocks.forEach((b, index) => {
      if (b.type === "text") {
        out.push(event({ type: "content_block_start", index, content_block: { type: "text", text: "" } }));
        for (const piece of fragments(b.text, 4)) out.push(event({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }));
        // Held before the last text fragment: the first ones are out, the answer has not ended.
        holdAt ??= out.length - 1;
      } else {
        out.push(event({ type: "content_block_start", index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } }));
        for (const piece of ["", ...fragments(b.json, 3)]) out.push(event({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } }));
      }
      out.push(event({ type: "content_block_stop", index }));
    });
    out.push(event({ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: roughTokens(blocks) } }));
    out.push(event({ type: "message_stop" }));
    const hold = reply.hold === undefined || holdAt === undefined ? undefined : { at: holdAt, until: reply.hold };
    await writeChunks(res, out, { signal, delayMs: delay, hold, onHold: () => this.held() });
    res.end();
  }
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  return new FakeAnthropic(options).listen();
}

type OutBlock = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; json: string };

function parts(reply: Extract<FakeReply, { type: "text" | "tool_calls" | "max_tokens" }>): { blocks: OutBlock[]; stop: string } {
  if (reply.type !== "tool_calls") return { blocks: [{ type: "text", text: reply.text }], stop: reply.type === "max_tokens" ? "max_tokens" : "end_turn" };
  const blocks: OutBlock[] = reply.text ? [{ type: "text", text: reply.text }] : [];
  for (const c of reply.calls) blocks.push({ type: "tool_use", id: c.id ?? fakeId("toolu_"), name: c.name, json: argumentText(c) });
  return { blocks, stop: "tool_use" };
}

function parsesAsObject(json: string): boolean {
  try {
    const v: unknown = JSON.parse(json);
    return v !== null && typeof v === "object" && !Array.isArray(v);
  } catch {
    return false;
  }
}

function checkBody(body: MessagesBody | undefined, version: string): string | undefined {
  if (body === undefined || typeof body !== "object") return "invalid JSON body";
  if (typeof body.model !== "string" || body.model === "") return "model: Field required";
  if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) return "max_tokens: Field required";
  if (version >= "2026-10-21") {
    for (const p of ["temperature", "top_p", "top_k"] as const) if (body[p] !== undefined) return `${p}: Extra inputs are not permitted`;
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "messages: at least one message is required";
  for (const [i, t] of (body.tools ?? []).entries()) {
    if (!WIRE_NAME.test(t.name ?? "")) return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
    if (t.input_schema?.type !== "object") return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
  }
  let previousToolUses = new Set<string>();
  for (const [i, m] of body.messages.entries()) {
    if (m.role !== "user" && m.role !== "assistant") return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const blocks: Block[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
    if (blocks.length === 0) return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    let seenOther = false;
    for (const [j, b] of blocks.entries()) {
      if (b.type === "text" && b.text === "") return `messages.${i}.content.${j}.text: text content blocks must be non-empty`;
      if (b.type === "tool_result") {
        if (m.role !== "user") return `messages.${i}.content.${j}: tool_result blocks are only allowed in user messages`;
        if (seenOther) return `messages.${i}: tool_result blocks must come first in the content array, before any other content`;
        if (!previousToolUses.has(b.tool_use_id ?? "")) return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      } else seenOther = true;
      if (b.type === "tool_use" && !WIRE_NAME.test(b.name ?? "")) return `messages.${i}.content.${j}.tool_use.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
    }
    previousToolUses = new Set(m.role === "assistant" ? blocks.filter((b) => b.type === "tool_use").map((b) => b.id ?? "") : []);
  }
  return undefined;
}

function error(res: ServerResponse, e: { status: number; message: string; headers?: Record<string, string> | undefined }): void {
  const { status, message, headers = {} } = e;
  res.writeHead(status, { "content-type": "application/json", "request-id": fakeId("req_"), ...headers });
  res.end(JSON.stringify({ type: "error", error: { type: ERROR_TYPES[status] ?? "api_error", message }, request_id: fakeId("req_") }));
}
