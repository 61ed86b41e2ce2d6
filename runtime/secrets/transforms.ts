/**
 * Whether a tool's output holds a secret it was given, in one of a documented set of
 * transformed spellings (docs/security.md, "Secrets in tool outputs"). Redaction
 * (audit/redact.ts, host-proxies/secret-forms.ts) replaces a secret's exact echoes: as written,
 * JSON-escaped, percent, hex and base64. A plugin holding a secret can still hand it out
 * changed — reversed, in upper case, spaced out — and no list of spellings can catch every
 * change a program can make: this is the operator's stricter setting
 * (`secrets.refuse_transformed_outputs`), which refuses an output found to hold a secret in:
 *
 * - the secret, or it reversed, or its ROT13, or ROT13 reversed, each in any letter case;
 * - with any separators between its letters and digits (`s-e-c-r-e-t`, `s e c r e t`), and
 *   split across the output's fields in order (`{"a": "sec", "b": "ret"}`);
 * - behind JSON/JavaScript escapes (`\u0073`, `\x73`, `\u{73}`) or HTML character references
 *   (`&#115;`, `&#x73;`), or percent-encoding of any bytes (either case);
 * - base64 (standard or URL alphabet, padded or not, wrapped across lines, at any alignment)
 *   or hex (either case, with or without separators) of any of the above, also of the text
 *   reversed (the encoding reversed).
 *
 * Every comparison is made on the text's skeleton: letters and digits only, lower case. So a
 * secret is looked for only when its skeleton has at least `MIN_SKELETON` characters (a shorter
 * one would match ordinary text); other characters of the secret are not compared.
 */

/** The fewest letters and digits a secret needs for its transformed spellings to be looked for. */
export const MIN_SKELETON = 8;

/** A secret as the check is given it: its name (shown), its value (never shown). */
export interface HeldSecret {
  readonly name: string;
  readonly value: string;
}

/** Where a secret was found: its name and the spelling, for the refusal's message. */
export interface SecretFinding {
  readonly name: string;
  readonly transform: string;
}

/**
 * Letters and digits of `bytes`, ASCII ones lower-cased; bytes past ASCII (UTF-8 of other
 * scripts) are kept as they are. Bytes, not text: the views below are megabytes of decoded
 * garbage as often as text, and a byte loop reads them in milliseconds.
 */
export function skeletonBytes(input: Uint8Array): Buffer {
  const bytes = new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if ((b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x7a) || b >= 0x80) out[n++] = b;
    else if (b >= 0x41 && b <= 0x5a) out[n++] = b + 0x20;
  }
  return Buffer.from(out.buffer, 0, n);
}

/** `skeletonBytes` of a text. */
export function skeleton(text: string): Buffer {
  return skeletonBytes(Buffer.from(text, "utf8"));
}

function reverse(text: string): string {
  return [...text].reverse().join("");
}

function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** The spellings of one secret compared with each view's skeleton. */
function variants(secret: string): Array<{ form: Buffer; transform: string }> {
  return [
    { form: skeleton(secret), transform: "as written (any case, with separators or split across fields)" },
    { form: skeleton(reverse(secret)), transform: "reversed" },
    { form: skeleton(rot13(secret)), transform: "in ROT13" },
    { form: skeleton(reverse(rot13(secret))), transform: "in ROT13, reversed" },
  ];
}

/** JSON/JavaScript escapes and HTML character references, decoded (leniently). */
function unescaped(text: string): string {
  return text
    .replace(/\\u\{([0-9a-f]{1,6})\}/gi, (_m, hex: string) => codePoint(parseInt(hex, 16)))
    .replace(/\\u([0-9a-f]{4})/gi, (_m, hex: string) => codePoint(parseInt(hex, 16)))
    .replace(/\\x([0-9a-f]{2})/gi, (_m, hex: string) => codePoint(parseInt(hex, 16)))
    .replace(/&#x([0-9a-f]{1,6});?/gi, (_m, hex: string) => codePoint(parseInt(hex, 16)))
    .replace(/&#([0-9]{1,7});?/g, (_m, dec: string) => codePoint(parseInt(dec, 10)));
}

function codePoint(value: number): string {
  return value <= 0x10ffff ? String.fromCodePoint(value) : "";
}

/** Percent-encoded bytes decoded (a broken sequence is kept as it is). */
function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => Buffer.from(run.replace(/%/g, ""), "hex").toString("latin1"));
}

/** Each byte's value as a base64 digit (both alphabets), else -1. */
const BASE64 = new Int8Array(256).fill(-1);
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".split("").forEach((c, i) => (BASE64[c.charCodeAt(0)] = i));
BASE64["-".charCodeAt(0)] = 62;
BASE64["_".charCodeAt(0)] = 63;
/** Each byte's value as a hex digit (lower case: views are skeletons), else -1. */
const HEX = new Int8Array(256).fill(-1);
"0123456789abcdef".split("").forEach((c, i) => (HEX[c.charCodeAt(0)] = i));
const CR = 0x0d;
const LF = 0x0a;

/**
 * Runs of at least `minDigits` digits of `table` in `bytes` (line breaks inside a run skipped
 * when `wrapped`, so wrapped base64 is one run), each decoded at every alignment from 0 to
 * `alignments - 1`, `bits` bits a digit: one buffer per alignment, the runs' bytes one after
 * another. Byte loops, no strings: a view may be megabytes.
 */
function decodedRuns(input: Uint8Array, options: { table: Int8Array; bits: 4 | 6; alignments: number; minDigits: number; wrapped: boolean }): Buffer[] {
  const { table, bits, alignments, minDigits, wrapped } = options;
  // A plain typed array: element reads of a Buffer (a subclass) are several times slower here.
  const bytes = new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  const runs: Array<[number, number, number]> = [];
  for (let i = 0; i < bytes.length; ) {
    if (table[bytes[i]!]! < 0) {
      i++;
      continue;
    }
    const start = i;
    let digits = 0;
    while (i < bytes.length && (table[bytes[i]!]! >= 0 || (wrapped && (bytes[i] === CR || bytes[i] === LF)))) {
      if (table[bytes[i]!]! >= 0) digits++;
      i++;
    }
    if (digits >= minDigits) runs.push([start, i, digits]);
  }
  if (runs.length === 0) return [];
  const out: Buffer[] = [];
  for (let align = 0; align < alignments; align++) {
    const total = runs.reduce((sum, [, , digits]) => sum + Math.ceil((digits * bits) / 8), 0);
    const buffer = new Uint8Array(total);
    let n = 0;
    for (const [start, end] of runs) {
      let skipped = 0;
      let acc = 0;
      let have = 0;
      for (let i = start; i < end; i++) {
        const value = table[bytes[i]!]!;
        if (value < 0) continue;
        if (skipped++ < align) continue;
        acc = ((acc << bits) | value) & 0xffff;
        have += bits;
        if (have >= 8) {
          have -= 8;
          buffer[n++] = (acc >> have) & 0xff;
        }
      }
    }
    out.push(Buffer.from(buffer.buffer, 0, n));
  }
  return out;
}

function base64Decoded(bytes: Uint8Array, minChars: number): Buffer[] {
  return decodedRuns(bytes, { table: BASE64, bits: 6, alignments: 4, minDigits: Math.max(2, minChars), wrapped: true });
}

function hexDecoded(plain: Uint8Array, minChars: number): Buffer[] {
  return decodedRuns(plain, { table: HEX, bits: 4, alignments: 2, minDigits: Math.max(2, minChars), wrapped: false });
}

/**
 * The texts a tool's output is searched in: its strings in order (keys and values), and its
 * values alone joined (a secret split across fields). A non-JSON output is its text.
 */
export function outputTexts(output: unknown): string[] {
  if (typeof output === "string") return [output];
  const all: string[] = [];
  const values: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") {
      all.push(value);
      values.push(value);
    } else if (typeof value === "number" || typeof value === "bigint") {
      all.push(String(value));
      values.push(String(value));
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item);
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        all.push(key);
        walk(item);
      }
    }
  };
  walk(output);
  return [all.join("\n"), values.join("")];
}

/**
 * The first secret of `secrets` found in `texts` in one of the documented spellings, or
 * undefined. A few linear passes over the texts' bytes.
 */
export function findTransformedSecret(texts: readonly string[], secrets: readonly HeldSecret[]): SecretFinding | undefined {
  const checked = secrets.filter((s) => skeleton(s.value).length >= MIN_SKELETON);
  if (checked.length === 0) return undefined;
  // An encoded secret is at least 4/3 (base64) or 2 (hex) characters a byte of its shortest skeleton.
  const shortest = Math.min(...checked.map((s) => skeleton(s.value).length));
  const views: Array<{ plain: Buffer; via: string }> = [];
  const add = (bytes: Uint8Array, via: string) => views.push({ plain: skeletonBytes(bytes), via });
  for (const text of texts) {
    const bytes = Buffer.from(text, "utf8");
    add(bytes, "");
    if (/\\[ux]|&#/i.test(text)) add(Buffer.from(unescaped(text), "utf8"), "behind escapes");
    if (text.includes("%")) add(Buffer.from(percentDecoded(text), "latin1"), "percent-encoded");
    // The encodings are ASCII: reversing their bytes reverses the encoded text.
    const backwards = Buffer.from(bytes).reverse();
    for (const [source, how] of [[bytes, ""], [backwards, ", the encoding reversed"]] as const) {
      for (const decoded of base64Decoded(source, Math.floor((shortest * 4) / 3))) {
        add(decoded, `in base64${how}`);
        // Hex inside base64 (an encoding of an encoding): one level more, cheap on decoded bytes.
        for (const inner of hexDecoded(skeletonBytes(decoded), shortest * 2)) add(inner, `in hex, then base64${how}`);
      }
      for (const decoded of hexDecoded(skeletonBytes(source), shortest * 2)) add(decoded, `in hex${how}`);
    }
  }
  for (const secret of checked) {
    for (const variant of variants(secret.value)) {
      for (const view of views) {
        if (view.plain.includes(variant.form)) return { name: secret.name, transform: view.via === "" ? variant.transform : `${variant.transform}, ${view.via}` };
      }
    }
  }
  return undefined;
}
