import { MIN_REDACTED_LENGTH, REDACTED } from "../audit/index.js";

/** Shared with the audit log's redaction: see `MIN_REDACTED_LENGTH` there for why. */
export { MIN_REDACTED_LENGTH };

export interface SecretRedactorOptions {
  /** Values with fewer characters (code points) are ignored. Default `MIN_REDACTED_LENGTH`. */
  readonly minLength?: number;
}

/** Redacts a string to a string and bytes to bytes. Input without a secret is returned as is. */
export interface SecretRedactor {
  (text: string): string;
  (body: Uint8Array): Uint8Array;
}

/**
 * A redactor for `values`: every place any of them occurs becomes `[REDACTED]`. Besides the raw
 * value it looks for the forms a value takes inside a JSON string and inside a URL component
 * (a secret with a quote, a backslash, a space or `+` is written differently there).
 *
 * Occurrences are found for every form of every value, overlapping ones included, and each run
 * of overlapping occurrences becomes one marker. That covers what "longest first" is for — a
 * value inside a longer one is redacted as part of the longer one — and also overlaps of two
 * different values, where replacing one value first would leave a piece of the other visible.
 *
 * Bytes are searched as bytes (the UTF-8 of each form), so a binary body is never decoded and
 * re-encoded. Each call works on one whole text: a value split across two chunks of a stream
 * is not found; redact the assembled body.
 */
export function secretRedactor(values: readonly string[], options: SecretRedactorOptions = {}): SecretRedactor {
  const minLength = options.minLength ?? MIN_REDACTED_LENGTH;
  const texts = formsOf(values, minLength);
  const byteForms = texts.map((form) => Buffer.from(form, "utf8"));
  const marker = Buffer.from(REDACTED, "utf8");
  function redact(text: string): string;
  function redact(body: Uint8Array): Uint8Array;
  function redact(input: string | Uint8Array): string | Uint8Array {
    if (typeof input === "string") {
      const ranges = coveredRanges<string>(input, texts);
      if (ranges.length === 0) return input;
      return rebuild(ranges, { length: input.length, slice: (start, end) => input.slice(start, end), marker: REDACTED }).join("");
    }
    const body = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    const ranges = coveredRanges<Uint8Array>(body, byteForms);
    if (ranges.length === 0) return input;
    return new Uint8Array(Buffer.concat(rebuild(ranges, { length: body.length, slice: (start, end) => body.subarray(start, end), marker })));
  }
  return redact;
}

/** Each usable value and its escaped forms, deduplicated. */
function formsOf(values: readonly string[], minLength: number): string[] {
  const forms = new Set<string>();
  for (const value of values) {
    if (typeof value !== "string" || [...value].length < minLength) continue;
    forms.add(value);
    forms.add(JSON.stringify(value).slice(1, -1));
    if (value.isWellFormed()) forms.add(encodeURIComponent(value));
  }
  return [...forms];
}

interface Searchable<T> {
  readonly length: number;
  indexOf(needle: T, from: number): number;
}

/** The half-open ranges covered by any occurrence of any needle, merged where they overlap. */
function coveredRanges<T extends { readonly length: number }>(haystack: Searchable<T>, needles: readonly T[]): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  for (const needle of needles) {
    // Step one position past each match, not past its end: `aaaa` occurs in `aaaaa` twice.
    for (let at = haystack.indexOf(needle, 0); at !== -1; at = haystack.indexOf(needle, at + 1)) found.push([at, at + needle.length]);
  }
  found.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of found) {
    const last = merged.at(-1);
    if (last !== undefined && start < last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** The pieces of the input between the ranges, with `marker` in place of each range. */
function rebuild<T>(
  ranges: ReadonlyArray<[number, number]>,
  input: { length: number; slice: (start: number, end: number) => T; marker: T },
): T[] {
  const { length, slice, marker } = input;
  const parts: T[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    parts.push(slice(at, start), marker);
    at = end;
  }
  parts.push(slice(at, length));
  return parts;
}
