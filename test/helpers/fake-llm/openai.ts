/**
 * A fake OpenAI Chat Completions server (POST /v1/chat/completions), speaking the documented
 * format: `chat.completion` objects, or with `stream: true` an SSE stream of
 * `chat.completion.chunk` objects (`data: {...}\n\n`), `tool_calls` deltas keyed by `index`
 * (id, type and name on the first delta of a call, then `arguments` fragments), a final
 * usage chunk with `choices: []` when `stream_options.include_usage` is set, and `data: [DONE]`.
 * Errors are `{"error": {"message", "type", "param", "code"}}`. It checks what the real API
 * refuses (missing auth, tool names, a `tool` message without its assistant tool call) with a
 * 400/401 in that shape, so adapter bugs fail the tests instead of passing against a lenient fake.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ServerResponse } from "node:http";
import { FakeHttpServer, fragments, untilClosed, writeChunks, type Exchange } from "./server.js";
import { argumentText, fakeId, roughTokens, type FakeReply } from "./replies.js";
import { LLM_STREAMS } from "./fixtures.js";

const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export interface FakeOpenAiOptions {
  /** Accept requests without an Authorization header (a local server such as Ollama). */
  keyless?: boolean;
  /** Milliseconds between stream chunks. */
  chunkDelayMs?: number;
}

interface ChatBody {
  model?: unknown;
  messages?: Array<{ role?: string; content?: unknown; tool_calls?: Array<{ id: string; function: { name: string } }>; tool_call_id?: string }>;
  tools?: Array<{ type?: string; function?: { name?: string } }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

export class FakeOpenAi extends FakeHttpServer<FakeReply> {
  constructor(readonly options: FakeOpenAiOptions = {}) {
    super((exchange) => this.#answer(exchange));
  }

  /** The base URL an OpenAI client takes (`…/v1`). */
  get baseUrl(): string {
    return `${this.url}/v1`;
  }

  async #answer(exchange: Exchange<FakeReply>): Promise<void> {
    const { req, reply, res } = exchange;
    if (req.method !== "POST" || req.path.split("?")[0] !== "/v1/chat/completions") return error(res, { status: 404, message: `Unknown request URL: ${req.method} ${req.path}`, type: "invalid_request_error" });
    const auth = req.headers.authorization;
    if (!this.options.keyless && (typeof auth !== "string" || !/^Bearer \S+$/.test(auth))) {
      return error(res, { status: 401, message: "You didn't provide an API key.", type: "invalid_request_error", code: "invalid_api_key" });
    }
    const body = req.body as ChatBody | undefined;
    const problem = checkBody(body);
    if (problem) return error(res, { status: 400, message: problem, type: "invalid_request_error" });
    if (reply === undefined) return error(res, { status: 500, message: "fake: no scripted reply left", type: "server_error" });
    if (reply.type === "error") return error(res, { status: reply.status, message: reply.message ?? `fake error ${reply.status}`, type: reply.status === 429 ? "rate_limit_error" : "server_error", headers: reply.headers });
    const model = String(body?.model);
    if (body?.stream) return this.#stream(exchange, { body, reply, model });
    if (reply.type === "json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(reply.body));
      return;
    }
    if (reply.type === "fixture" || reply.type === "hang" || reply.type === "drop") return error(res, { status: 500, message: `fake: ${reply.type} needs a streaming request`, type: "server_error" });
    const { text, calls, finish } = parts(reply);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: fakeId("chatcmpl-"),
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: text || null, refusal: null, ...(calls.length > 0 ? { tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.args } })) } : {}) },
            logprobs: null,
            finish_reason: finish,
          },
        ],
        usage: usage(body, text + calls.map((c) => c.args).join("")),
      }),
    );
  }

  async #stream(exchange: Exchange<FakeReply>, parsed: { body: ChatBody; reply: Exclude<FakeReply, { type: "error" }>; model: string }): Promise<void> {
    const { res, signal } = exchange;
    const { body, reply, model } = parsed;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    if (reply.type === "json") {
      res.end(`data: ${JSON.stringify({ error: { message: "fake: a json reply needs a non-streaming request", type: "server_error", param: null, code: null } })}\n\n`);
      return;
    }
    if (reply.type === "fixture") {
      const bytes = await readFile(join(LLM_STREAMS, reply.file));
      res.end(bytes);
      return;
    }
    const id = fakeId("chatcmpl-");
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, system_fingerprint: "fp_fake", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
    const delay = this.options.chunkDelayMs ?? 0;
    if (reply.type === "hang" || reply.type === "drop") {
      await writeChunks(res, [chunk({ role: "assistant", content: "" }), ...(reply.text ? [chunk({ content: reply.text })] : [])], { signal, delayMs: delay });
      if (reply.type === "drop") {
        res.socket?.destroy();
        return;
      }
      await untilClosed(signal);
      return;
    }
    const { text, calls, finish } = parts(reply);
    const out = [chunk({ role: "assistant", content: calls.length > 0 && !text ? null : "", refusal: null })];
    for (const piece of text ? fragments(text, 4) : []) out.push(chunk({ content: piece }));
    // Held before the last text fragment: the first ones are out, the answer has not ended.
    const hold = reply.hold === undefined ? undefined : { at: Math.max(1, out.length - 1), until: reply.hold };
    calls.forEach((c, index) => {
      out.push(chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }));
      for (const piece of fragments(c.args, 3)) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    out.push(chunk({}, finish));
    if (body.stream_options?.include_usage) {
      out.push(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, system_fingerprint: "fp_fake", choices: [], usage: usage(body, text + calls.map((c) => c.args).join("")) })}\n\n`);
    }
    out.push("data: [DONE]\n\n");
    await writeChunks(res, out, { signal, delayMs: delay, hold, onHold: () => this.held() });
    res.end();
  }
}

export async function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  return new FakeOpenAi(options).listen();
}

function parts(reply: Extract<FakeReply, { type: "text" | "tool_calls" | "max_tokens" }>) {
  if (reply.type === "tool_calls") {
    return { text: reply.text ?? "", calls: reply.calls.map((c) => ({ id: c.id ?? fakeId("call_"), name: c.name, args: argumentText(c) })), finish: "tool_calls" };
  }
  return { text: reply.text, calls: [], finish: reply.type === "max_tokens" ? "length" : "stop" };
}

function usage(body: ChatBody | undefined, output: string) {
  const prompt = roughTokens(body?.messages);
  const completion = roughTokens(output);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: 0 } };
}

function checkBody(body: ChatBody | undefined): string | undefined {
  if (body === undefined || typeof body !== "object") return "We could not parse the JSON body of your request.";
  if (typeof body.model !== "string" || body.model === "") return "you must provide a model parameter";
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "[] is too short - 'messages'";
  for (const [i, t] of (body.tools ?? []).entries()) {
    if (t.type !== "function" || !WIRE_NAME.test(t.function?.name ?? "")) return `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`;
  }
  const open = new Set<string>();
  for (const [i, m] of body.messages.entries()) {
    if (m.role === "assistant") {
      if (open.size > 0) return unanswered(i);
      for (const c of m.tool_calls ?? []) open.add(c.id);
    } else if (m.role === "tool") {
      if (!m.tool_call_id || !open.has(m.tool_call_id)) return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[${i}])`;
    } else if (m.role === "user" || m.role === "system" || m.role === "developer") {
      if (open.size > 0) return unanswered(i);
    } else {
      return `Invalid value: '${String(m.role)}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.`;
    }
    if (m.role === "tool" && m.tool_call_id) open.delete(m.tool_call_id);
  }
  return open.size > 0 ? unanswered(body.messages.length) : undefined;
}

function unanswered(i: number): string {
  return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (messages[${i}])`;
}

function error(res: ServerResponse, e: { status: number; message: string; type: string; code?: string; headers?: Record<string, string> | undefined }): void {
  const { status, message, type, code = null, headers = {} } = e;
  res.writeHead(status, { "content-type": "application/json", "x-request-id": fakeId("req_"), ...headers });
  res.end(JSON.stringify({ error: { message, type, param: null, code } }));
}
