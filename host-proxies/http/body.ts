/**
 * Reads a response body up to a cap counted after decompression. A decompression bomb (100 MB
 * of zeros gzips to ~100 KB; br and nested encodings do better) must cost at most the cap: the
 * decoder is stopped from inside its own `data` event, the chunk that crosses the cap is cut,
 * and the response socket is destroyed, so nothing more is inflated or read.
 */
import type { IncomingMessage } from "node:http";
import type { Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { HostProxyError } from "../types.js";

/** What the host advertises in `accept-encoding`, and decodes. */
export const ACCEPT_ENCODING = "gzip, deflate, br";
/** Nested encodings beyond this are refused: each layer multiplies a bomb. */
const MAX_CODINGS = 2;
const DECODER_CHUNK = 16 * 1024;

export interface ReadBody {
  body: Uint8Array;
  truncated: boolean;
  /** True when a content-encoding was undone (the caller drops the encoding headers). */
  decoded: boolean;
}

/** The decoders for a `content-encoding` value, outermost last; `undefined` for unknown ones. */
export function decodersFor(contentEncoding: string | undefined): Transform[] | undefined {
  const codings = (contentEncoding ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
  if (codings.length > MAX_CODINGS) throw HostProxyError.io(`response content-encoding ${JSON.stringify(contentEncoding)}: more than ${MAX_CODINGS} codings`);
  const decoders: Transform[] = [];
  // Codings are listed in the order applied (RFC 9110 §8.4): undo them last to first.
  for (const coding of codings.reverse()) {
    const options = { chunkSize: DECODER_CHUNK };
    if (coding === "gzip" || coding === "x-gzip") decoders.push(createGunzip(options));
    else if (coding === "deflate") decoders.push(createInflate(options));
    else if (coding === "br") decoders.push(createBrotliDecompress(options));
    else return undefined;
  }
  return decoders;
}

/** Reads `response` (decoded when its encoding is known) into at most `maxBytes` bytes. */
export function readBody(response: IncomingMessage, options: { maxBytes: number }): Promise<ReadBody> {
  let decoders: Transform[] | undefined;
  try {
    decoders = decodersFor(header(response, "content-encoding"));
  } catch (err) {
    // Refused before a byte is read: the body must not stay queued on an open socket.
    response.destroy();
    return Promise.reject(err);
  }
  const chain = decoders ?? [];
  let source: NodeJS.ReadableStream = response;
  for (const decoder of chain) source = source.pipe(decoder);
  const stop = () => {
    for (const stage of chain) stage.destroy();
    response.destroy();
  };
  return new Promise<ReadBody>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const finish = (truncated: boolean) => {
      if (settled) return;
      settled = true;
      resolve({ body: new Uint8Array(Buffer.concat(chunks, total)), truncated, decoded: chain.length > 0 });
    };
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      stop();
      reject(err);
    };
    source.on("data", (chunk: Buffer) => {
      if (settled) return;
      const room = options.maxBytes - total;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        total += room;
        stop();
        finish(true);
        return;
      }
      chunks.push(chunk);
      total += chunk.length;
    });
    source.on("end", () => finish(false));
    for (const stage of [response, ...chain]) stage.on("error", fail);
    // A server that closes mid-body (no `end`) must not hang the fetch until its deadline.
    response.on("close", () => {
      if (!response.complete) fail(HostProxyError.io("the server closed the connection before the body ended"));
    });
  });
}

function header(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}
