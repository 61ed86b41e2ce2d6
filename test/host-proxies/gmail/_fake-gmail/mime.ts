/**
 * The fake Gmail server's own MIME reader: enough of RFC 2045/2046 to turn a fixture into the
 * `MessagePart` tree Gmail would serve. Written apart from mailparser on purpose, so the
 * conformance suite compares two independent readings of each fixture. As Gmail does with
 * `format=full`, text bodies are served re-encoded to UTF-8 and header values unfolded but
 * otherwise as written (RFC 2047 words left encoded); an 8-bit header that is not UTF-8 is
 * read as latin-1.
 */
import libmime from "libmime";

export interface MimeHeader {
  name: string;
  value: string;
}

export interface MimeNode {
  headers: MimeHeader[];
  /** Lowercase, e.g. `text/plain`; `text/plain` when absent. */
  mimeType: string;
  params: Record<string, string>;
  /** Transfer-decoded body bytes (empty for multipart). */
  body: Buffer;
  children: MimeNode[];
  /** Content-Disposition type (`attachment`, `inline`) or "". */
  disposition: string;
  filename: string;
}

export function parseMime(bytes: Buffer): MimeNode {
  const text = bytes.toString("latin1");
  // A part may have no headers at all: then its first line is already the blank one.
  const split = /^\r?\n/.test(text) ? /^\r?\n/.exec(text) : /\r?\n\r?\n/.exec(text);
  const headEnd = split?.index ?? text.length;
  const headers = parseHeaders(text.slice(0, headEnd));
  const raw = split === null ? "" : text.slice(headEnd + split[0].length);
  const header = (name: string) => headers.find((h) => h.name.toLowerCase() === name)?.value;
  const type = libmime.parseHeaderValue(header("content-type") ?? "text/plain");
  const mimeType = type.value.toLowerCase() || "text/plain";
  const disposition = libmime.parseHeaderValue(header("content-disposition") ?? "");
  const filename = libmime.decodeWords(disposition.params.filename ?? type.params.name ?? "");
  const node: MimeNode = { headers, mimeType, params: type.params, body: Buffer.alloc(0), children: [], disposition: disposition.value.toLowerCase(), filename };
  if (mimeType.startsWith("multipart/") && type.params.boundary !== undefined) {
    node.children = splitMultipart(raw, type.params.boundary).map((part) => parseMime(Buffer.from(part, "latin1")));
  } else {
    node.body = transferDecode(raw, (header("content-transfer-encoding") ?? "").trim().toLowerCase());
  }
  return node;
}

function parseHeaders(block: string): MimeHeader[] {
  return block
    .split(/\r?\n(?![ \t])/)
    .filter((line) => line.includes(":"))
    .map((line) => {
      const colon = line.indexOf(":");
      const value = line.slice(colon + 1).replace(/\r?\n/g, "").trim();
      return { name: line.slice(0, colon).trim(), value: utf8OrLatin1(Buffer.from(value, "latin1")) };
    });
}

function utf8OrLatin1(bytes: Buffer): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return bytes.toString("latin1");
  }
}

/** RFC 2046 §5.1.1: the CRLF before a delimiter belongs to the delimiter; preamble and epilogue are dropped. */
function splitMultipart(body: string, boundary: string): string[] {
  const parts: string[] = [];
  let current: string[] | undefined;
  for (const line of body.split("\n")) {
    const bare = line.replace(/\r$/, "").trimEnd();
    if (bare === `--${boundary}--`) break;
    if (bare === `--${boundary}`) {
      if (current !== undefined) parts.push(current.join("\n").replace(/\r$/, ""));
      current = [];
      continue;
    }
    current?.push(line);
  }
  if (current !== undefined) parts.push(current.join("\n").replace(/\r$/, ""));
  return parts;
}

function transferDecode(raw: string, encoding: string): Buffer {
  if (encoding === "base64") return Buffer.from(raw.replace(/[^A-Za-z0-9+/=]/g, ""), "base64");
  if (encoding === "quoted-printable") {
    const soft = raw.replace(/=\r?\n/g, "");
    return Buffer.from(soft.replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), "latin1");
  }
  return Buffer.from(raw, "latin1");
}

/** A text body re-encoded to UTF-8, as Gmail serves `body.data` for `format=full`. */
export function utf8Body(node: MimeNode): Buffer {
  const charset = (node.params.charset ?? "utf-8").toLowerCase();
  let text: string;
  try {
    text = new TextDecoder(charset === "us-ascii" ? "utf-8" : charset).decode(node.body);
  } catch {
    text = node.body.toString("latin1");
  }
  return Buffer.from(text, "utf8");
}
