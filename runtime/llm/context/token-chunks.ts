/**
 * Bounded token counting of untrusted text. gpt-tokenizer's BPE is quadratic in the length of
 * one pre-tokenizer piece (a run of one letter is one piece: 100 000 `A` took 25 s), and even
 * linear counting of megabytes blocks the event loop for seconds. So:
 * - text is cut into chunks of at most MAX_CHUNK_CHARS, preferably right before a space that
 *   follows a non-space, where o200k's pre-tokenizer always ends a piece (the count is then
 *   exact); a run with no such place is cut hard, which bounds every piece the tokenizer sees;
 * - a text longer than EXACT_MAX_CHARS is estimated from SAMPLES evenly spread windows of
 *   SAMPLE_CHARS each, so one count never tokenizes more than a fixed number of characters.
 */

/** Longest chunk handed to the tokenizer. */
export const MAX_CHUNK_CHARS = 1024;
/** Longest text counted exactly; longer texts are estimated from samples. */
export const EXACT_MAX_CHARS = 64 * 1024;
/** Sample windows of an estimated text, and their length. */
export const SAMPLES = 16;
export const SAMPLE_CHARS = 4096;

const isSpace = (code: number) => code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0x3000 || code === 0x2028 || code === 0x2029;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Where the chunk starting at `start` ends: the last exact cut in the window, else the last
 * whitespace, else MAX_CHUNK_CHARS on (never inside a surrogate pair).
 */
export function chunkEnd(text: string, start: number): number {
  const limit = start + MAX_CHUNK_CHARS;
  if (limit >= text.length) return text.length;
  let loose = -1;
  for (let i = limit; i > start + 1; i--) {
    const code = text.charCodeAt(i);
    if (!isSpace(code)) continue;
    if (code === 0x20 && !isSpace(text.charCodeAt(i - 1))) return i;
    if (loose === -1) loose = i;
  }
  if (loose !== -1) return loose;
  return isHighSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit;
}

/** The chunks of `text`, in order; joined they are `text`. */
export function* chunksOf(text: string): Generator<string> {
  for (let start = 0; start < text.length; ) {
    const end = chunkEnd(text, start);
    yield text.slice(start, end);
    start = end;
  }
}

/** The first exact cut at or after `at` (within one chunk's length), else `at` itself. */
export function cutAtOrAfter(text: string, at: number): number {
  if (at <= 0) return 0;
  const stop = Math.min(text.length, at + MAX_CHUNK_CHARS);
  for (let i = at; i < stop; i++) {
    if (text.charCodeAt(i) === 0x20 && !isSpace(text.charCodeAt(i - 1))) return i;
  }
  return isHighSurrogate(text.charCodeAt(at - 1)) ? at + 1 : at;
}

/** Tokens of `text`, counting each chunk with `countChunk`. */
export function countChunked(text: string, countChunk: (chunk: string) => number): number {
  let total = 0;
  for (const chunk of chunksOf(text)) total += countChunk(chunk);
  return total;
}

/** The evenly spread windows a text longer than EXACT_MAX_CHARS is estimated from. */
export function samplesOf(text: string): string[] {
  const stride = Math.floor((text.length - SAMPLE_CHARS) / (SAMPLES - 1));
  const samples: string[] = [];
  for (let k = 0; k < SAMPLES; k++) {
    const start = cutAtOrAfter(text, k * stride);
    samples.push(text.slice(start, Math.min(text.length, start + SAMPLE_CHARS)));
  }
  return samples;
}

/** The estimate for a text of `length` characters from its samples: their token density times the length. */
export function estimateFromSamples(length: number, samples: readonly string[], countChunk: (chunk: string) => number): number {
  let tokens = 0;
  let chars = 0;
  for (const sample of samples) {
    tokens += countChunked(sample, countChunk);
    chars += sample.length;
  }
  return chars === 0 ? 0 : Math.ceil((tokens / chars) * length);
}

/**
 * Exact (chunked) for a text up to EXACT_MAX_CHARS; beyond, estimated from its samples. The
 * work is bounded by SAMPLES × SAMPLE_CHARS characters, whatever the text.
 */
export function countBounded(text: string, countChunk: (chunk: string) => number): number {
  if (text.length <= EXACT_MAX_CHARS) return countChunked(text, countChunk);
  return estimateFromSamples(text.length, samplesOf(text), countChunk);
}
