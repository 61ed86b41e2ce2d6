/**
 * A model's response is capped twice, so a provider (or whatever answers at its URL) cannot make
 * one Step cost more than the cap, whatever it sends:
 * - the ANSWER: text, tool names and tool arguments, counted in UTF-8 bytes as they arrive
 *   (`ResponseBudget`); this is what the run stores, so it bounds every copy of it;
 * - the WIRE: decoded HTTP body bytes (`cappedFetch`), WIRE_FACTOR times the answer cap. Streams
 *   spend most of their bytes on framing (an OpenAI chunk is ~200 bytes of JSON around a token),
 *   and without this bound endless pings, unknown fields or a single huge SSE event would be
 *   read and buffered before any answer byte is counted.
 * Passing either ends the call with `llm_response_too_large`; it is not retried.
 */
import { LlmError } from "./errors.js";
import type { Fetch } from "./http.js";
import type { ContentBlock } from "./model.js";

/** 1 MiB of answer: about 250k tokens of English, twice the longest output any model offers. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1 << 20;
/** Wire bytes allowed per answer byte. */
export const WIRE_FACTOR = 64;

function tooLarge(what: string, maxBytes: number): LlmError {
  return new LlmError(
    "llm_response_too_large",
    `the provider's ${what} passed ${maxBytes} bytes; raise model.max_response_bytes if the answer is legitimately this long, else lower model.max_tokens`,
  );
}

/** Counts an answer's bytes as it streams in; throws `llm_response_too_large` past `maxBytes`. */
export class ResponseBudget {
  #used = 0;
  constructor(readonly maxBytes: number) {}

  add(piece: string | undefined | null): void {
    if (!piece) return;
    this.#used += Buffer.byteLength(piece);
    if (this.#used > this.maxBytes) throw tooLarge("answer", this.maxBytes);
  }

  /** A whole (non-streamed) answer's blocks. */
  addContent(content: readonly ContentBlock[]): void {
    for (const block of content) {
      if (block.type === "text") this.add(block.text);
      if (block.type === "tool_use") {
        this.add(block.name);
        this.add(block.raw_input ?? JSON.stringify(block.input));
      }
    }
  }
}

/**
 * `inner`, with every response body cut off past `maxBytes` (after content decoding: fetch hands
 * over decoded bytes). The body errors with `llm_response_too_large` and the connection is
 * dropped, so nothing more is read or inflated.
 */
export function cappedFetch(inner: Fetch, maxBytes: number): Fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const body = response.body;
    if (body === null) return response;
    let seen = 0;
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    const counted =
      declared > maxBytes && response.headers.get("content-encoding") === null
        ? (void body.cancel().catch(() => undefined), erroredStream(tooLarge("response body", maxBytes)))
        : countedStream(body, (bytes) => (seen += bytes) > maxBytes, () => tooLarge("response body", maxBytes));
    const wrapped = new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
    Object.defineProperty(wrapped, "url", { value: response.url });
    return wrapped;
  };
}

/**
 * `body`, read chunk by chunk as the consumer pulls (no pipe machinery: a pull source costs one
 * read per chunk, where pipeThrough costs several promise hops on every token of a stream).
 */
function countedStream(body: ReadableStream<Uint8Array>, over: (bytes: number) => boolean, error: () => Error): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        if (over(value.byteLength)) {
          controller.error(error());
          void reader.cancel().catch(() => undefined);
          return;
        }
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

function erroredStream(error: Error): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.error(error) });
}

/** The `llm_response_too_large` error an SDK may have wrapped (as `cause`) on its way up. */
export function responseTooLarge(error: unknown): LlmError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof LlmError && e.code === "llm_response_too_large") return e;
  }
  return undefined;
}
