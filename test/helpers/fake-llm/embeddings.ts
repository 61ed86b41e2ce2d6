/**
 * A fake OpenAI-compatible embeddings endpoint (`POST /v1/embeddings`) on 127.0.0.1 with
 * deterministic vectors: a signed hashed bag of words (feature hashing, Weinberger et al. 2009)
 * over lower-cased, crudely stemmed words, L2-normalised. Texts that share words are near in
 * cosine distance, so vector search can be tested for recall without a model.
 *
 *   const fake = await startFakeEmbeddings({ dimensions: 256 });
 *   const embedder = new OpenAiEmbedder({ baseUrl: fake.baseUrl, model: "fake", dimensions: 256 });
 */
import { createHash } from "node:crypto";
import { FakeHttpServer } from "./server.js";

const WORD = /[\p{L}\p{N}]+/gu;
const STOPWORDS = new Set("a an and are as at be by can do does for from how i if in is it its of on or that the this to was what when where which who why with you your".split(" "));

function stem(word: string): string {
  for (const suffix of ["ations", "ation", "ings", "ing", "ies", "ed", "es", "s"]) {
    if (word.length > suffix.length + 3 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

/** The fake's vector for one text. */
export function fakeEmbedding(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const match of text.toLowerCase().matchAll(WORD)) {
    if (STOPWORDS.has(match[0])) continue;
    const digest = createHash("sha256").update(stem(match[0])).digest();
    const slot = digest.readUInt32LE(0) % dimensions;
    vector[slot]! += (digest[4]! & 1) === 0 ? 1 : -1;
  }
  let norm = 0;
  for (const x of vector) norm += x * x;
  if (norm === 0) vector[0] = 1;
  else for (let i = 0; i < dimensions; i++) vector[i]! /= Math.sqrt(norm);
  return vector;
}

export interface FakeEmbeddingsOptions {
  dimensions?: number;
  /** Answer every request with this status instead (to test failures). */
  failWith?: number;
}

export class FakeEmbeddings {
  readonly dimensions: number;
  constructor(readonly server: FakeHttpServer<never>, dimensions: number) {
    this.dimensions = dimensions;
  }
  get baseUrl(): string {
    return `${this.server.url}/v1`;
  }
  get requests() {
    return this.server.requests;
  }
  close(): Promise<void> {
    return this.server.close();
  }
}

export async function startFakeEmbeddings(options: FakeEmbeddingsOptions = {}): Promise<FakeEmbeddings> {
  const dimensions = options.dimensions ?? 256;
  const server = new FakeHttpServer<never>(async ({ req, res }) => {
    const input = (req.body as { input?: unknown } | undefined)?.input;
    const texts = typeof input === "string" ? [input] : input;
    if (options.failWith !== undefined || req.path !== "/v1/embeddings" || !Array.isArray(texts)) {
      res.writeHead(options.failWith ?? 400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "fake embeddings: POST /v1/embeddings with {input: string[]}" } }));
      return;
    }
    const data = texts.map((text, index) => ({ object: "embedding", index, embedding: Array.from(fakeEmbedding(String(text), dimensions)) }));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ object: "list", data, model: "fake-embeddings", usage: { prompt_tokens: 0, total_tokens: 0 } }));
  });
  await server.listen();
  return new FakeEmbeddings(server, dimensions);
}
