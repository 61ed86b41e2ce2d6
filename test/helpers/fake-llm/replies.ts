/** What a fake server answers, scripted per test; the same vocabulary for both fakes. */

export interface FakeToolCall {
  /** Generated when absent. */
  id?: string;
  /** The wire name (e.g. `files__read_file`), as the real API would send it. */
  name: string;
  /** An object is sent as its JSON; a string is sent as is (so it may be malformed). */
  arguments: string | Record<string, unknown>;
}

export type FakeReply =
  /**
   * A text answer (end_turn / stop). With `hold` the stream stops before its last text
   * fragment (and the end) until `hold` settles: a test sees the first fragments arrive while the
   * answer has not ended, with no timing involved.
   */
  | { type: "text"; text: string; hold?: PromiseLike<unknown> }
  /** One or more (parallel) tool calls, optionally after some text (`hold` as for text). */
  | { type: "tool_calls"; calls: FakeToolCall[]; text?: string; hold?: PromiseLike<unknown> }
  /** A text answer cut off by max_tokens (finish_reason length). */
  | { type: "max_tokens"; text: string; hold?: PromiseLike<unknown> }
  /** A recorded stream from test/fixtures/llm-streams, replayed byte for byte (streaming requests). */
  | { type: "fixture"; file: string }
  /** A recorded non-streaming response body, served as is (non-streaming requests). */
  | { type: "json"; body: unknown }
  /** An HTTP error in the provider's documented error shape, with optional headers (Retry-After). */
  | { type: "error"; status: number; message?: string; headers?: Record<string, string> }
  /** Starts a stream (optionally with some text), then never finishes: for abort and timeout tests. */
  | { type: "hang"; text?: string }
  /** Starts a stream (optionally with some text), then destroys the connection. */
  | { type: "drop"; text?: string };

let counter = 0;
export function fakeId(prefix: string): string {
  counter++;
  return `${prefix}${counter.toString(36).padStart(6, "0")}fake`;
}

/** The argument text of a scripted call. */
export function argumentText(call: FakeToolCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

/** A crude token estimate for the fakes' usage figures (the real APIs count with their tokenizer). */
export function roughTokens(value: unknown): number {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? "");
  return Math.max(1, Math.ceil(text.length / 4));
}
