import { MemoryError } from "./errors.js";

/** Turns texts into vectors of a fixed dimension (one per text, in order). */
export interface Embedder {
  readonly dimensions: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export interface OpenAiEmbedderOptions {
  /** Up to and including `/v1`, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  model: string;
  /** The vector length the model returns; sent as `dimensions` only when `sendDimensions`. */
  dimensions: number;
  sendDimensions?: boolean;
  /** Read per request, so a rotated key is picked up and the key never sits in this object. */
  apiKey?: () => Promise<string>;
  /** Texts per request. Default 64. */
  batchSize?: number;
  timeoutMs?: number;
  /** Attempts for a failed connection, 429 or 5xx. Default 3 (200 ms, then 400 ms apart). */
  attempts?: number;
  fetch?: typeof fetch;
}

/** An OpenAI-compatible `POST {baseUrl}/embeddings` client (OpenAI, vLLM, Ollama, LiteLLM, …). */
export class OpenAiEmbedder implements Embedder {
  readonly dimensions: number;
  #options: OpenAiEmbedderOptions;

  constructor(options: OpenAiEmbedderOptions) {
    if (!Number.isInteger(options.dimensions) || options.dimensions < 1 || options.dimensions > 65536) {
      throw new RangeError(`embedder dimensions: ${options.dimensions} must be an integer from 1 to 65536`);
    }
    this.dimensions = options.dimensions;
    this.#options = options;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const size = this.#options.batchSize ?? 64;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += size) out.push(...(await this.#request(texts.slice(i, i + size))));
    return out;
  }

  async #request(input: readonly string[]): Promise<Float32Array[]> {
    const attempts = this.#options.attempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#attempt(input);
      } catch (error) {
        // A kept-alive socket the server closed meanwhile (ECONNRESET) or an overloaded endpoint is worth another try.
        if (attempt >= attempts || !(error instanceof MemoryError && (error as MemoryError & { retryable?: boolean }).retryable === true)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }

  async #attempt(input: readonly string[]): Promise<Float32Array[]> {
    const o = this.#options;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (o.apiKey !== undefined) headers.authorization = `Bearer ${await o.apiKey()}`;
    const body = { model: o.model, input, encoding_format: "float", ...(o.sendDimensions ? { dimensions: o.dimensions } : {}) };
    const url = `${o.baseUrl.replace(/\/+$/, "")}/embeddings`;
    let response: Response;
    try {
      response = await (o.fetch ?? fetch)(url, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(o.timeoutMs ?? 30_000),
      });
    } catch (error) {
      throw retryable(new MemoryError("memory_embedding_failed", `embeddings ${url}: request failed: ${(error as Error).message}`, { cause: error }));
    }
    if (!response.ok) {
      const detail = (await response.text().catch(() => "")).slice(0, 300);
      const failed = new MemoryError("memory_embedding_failed", `embeddings ${url}: HTTP ${response.status}: ${detail}`);
      throw response.status === 429 || response.status >= 500 ? retryable(failed) : failed;
    }
    return this.#parse(await response.json(), input.length, url);
  }

  #parse(json: unknown, count: number, url: string): Float32Array[] {
    const data = (json as { data?: unknown }).data;
    if (!Array.isArray(data) || data.length !== count) {
      throw new MemoryError("memory_embedding_failed", `embeddings ${url}: expected ${count} embeddings in "data"`);
    }
    const out = new Array<Float32Array>(count);
    for (const [position, item] of data.entries()) {
      const { index, embedding } = item as { index?: unknown; embedding?: unknown };
      const at = typeof index === "number" ? index : position;
      if (!Array.isArray(embedding) || embedding.length !== this.dimensions || at < 0 || at >= count) {
        throw new MemoryError("memory_embedding_failed", `embeddings ${url}: item ${position} is not a ${this.dimensions}-number embedding`);
      }
      out[at] = Float32Array.from(embedding as number[]);
    }
    return out;
  }
}

function retryable(error: MemoryError): MemoryError {
  return Object.assign(error, { retryable: true });
}
