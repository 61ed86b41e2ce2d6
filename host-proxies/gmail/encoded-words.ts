/**
 * RFC 2047 encoded words in headers, decoded by their bytes: adjacent words are joined before
 * decoding (a multi-byte character may be split across two), and the bytes go through
 * `decodeBytes`, so a word labelled `iso-8859-1` whose bytes are really UTF-8 (a common mailer
 * bug) reads as the UTF-8 it is instead of mojibake. Raw 8-bit characters inside a word (not
 * =XX-escaped) are taken as the UTF-8 they were read as.
 */
import { decodeBytes } from "./charset.js";

const WORD = /=\?([^?\s*]+)(?:\*[^?\s]*)?\?([bq])\?([^?\s]*)\?=/gi;

interface Word {
  charset: string;
  bytes: Buffer;
}

/** `value` with every encoded word decoded; whitespace between adjacent words dropped (§6.2). */
export function decodeEncodedWords(value: string): string {
  let out = "";
  let last = 0;
  let run: Word[] = [];
  const flush = () => {
    out += joinRun(run);
    run = [];
  };
  for (const match of value.matchAll(WORD)) {
    const between = value.slice(last, match.index);
    if (run.length > 0 && between.trim() !== "") flush();
    if (run.length === 0) out += between;
    run.push({ charset: (match[1] ?? "").toLowerCase(), bytes: wordBytes(match[2] ?? "", match[3] ?? "") });
    last = match.index + match[0].length;
  }
  flush();
  return out + value.slice(last);
}

function joinRun(words: Word[]): string {
  let text = "";
  for (let i = 0; i < words.length; ) {
    let j = i;
    // ISO-2022 words each end in ASCII mode; decoders refuse a mode switch right after another.
    const stateful = words[i]!.charset.startsWith("iso-2022");
    while (j < words.length && words[j]!.charset === words[i]!.charset && (j === i || !stateful)) j++;
    text += decodeBytes(Buffer.concat(words.slice(i, j).map((w) => w.bytes)), words[i]!.charset);
    i = j;
  }
  return text;
}

function wordBytes(encoding: string, text: string): Buffer {
  if (encoding.toLowerCase() === "b") return Buffer.from(text, "base64");
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    const hex = c === "=" ? /^[0-9a-f]{2}$/i.exec(text.slice(i + 1, i + 3))?.[0] : undefined;
    if (hex !== undefined) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c === "_") bytes.push(0x20);
    else bytes.push(...Buffer.from(c, "utf8"));
  }
  return Buffer.from(bytes);
}
