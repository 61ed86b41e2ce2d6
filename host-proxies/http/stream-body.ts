/**
 * A response body handed on as it arrives, for a caller that must act on each part before the
 * whole has come (an MCP server's event stream asks the client something mid-call and waits for
 * the answer). The same bounds as a buffered read (body.ts): decoded under the same decoders,
 * capped after decompression (past the cap the stream errors and the socket is destroyed), and
 * every form of every secret the exchange sent redacted. A secret may be split across chunks,
 * so a tail that begins one is held back until the next chunk (or the end) shows what it is;
 * nothing is released that a later chunk could turn into a secret, and nothing else is held.
 */
import type { IncomingMessage } from "node:http";
import type { Transform } from "node:stream";
import { HostProxyError } from "../types.js";
import { decodersFor } from "./body.js";
import { redactBytes, secretForms } from "./redact.js";

export interface StreamBodyOptions {
  maxBytes: number;
  /** Secret values sent in the exchange: never released as they are. */
  secrets: readonly string[];
}

export interface StreamedBody {
  body: ReadableStream<Uint8Array>;
  /** True when a content-encoding is undone (the caller drops the encoding headers). */
  decoded: boolean;
}

export function streamBody(response: IncomingMessage, options: StreamBodyOptions): StreamedBody {
  let decoders: Transform[] | undefined;
  try {
    decoders = decodersFor(header(response, "content-encoding"));
  } catch (err) {
    response.destroy();
    throw err;
  }
  const chain = decoders ?? [];
  let source: NodeJS.ReadableStream = response;
  for (const decoder of chain) source = source.pipe(decoder);
  const stop = () => {
    for (const stage of chain) stage.destroy();
    response.destroy();
  };
  const redactor = new StreamRedactor(options.secrets);
  let total = 0;
  let settled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        stop();
        controller.error(err);
      };
      source.on("data", (chunk: Buffer) => {
        if (settled) return;
        total += chunk.length;
        if (total > options.maxBytes) return fail(HostProxyError.io(`the response was over ${options.maxBytes} bytes`));
        const ready = redactor.push(chunk);
        if (ready.length > 0) controller.enqueue(ready);
        if ((controller.desiredSize ?? 1) <= 0) source.pause();
      });
      source.on("end", () => {
        if (settled) return;
        settled = true;
        const rest = redactor.end();
        if (rest.length > 0) controller.enqueue(rest);
        controller.close();
      });
      for (const stage of [response, ...chain]) stage.on("error", fail);
      response.on("close", () => {
        if (!response.complete) fail(HostProxyError.io("the server closed the connection before the body ended"));
      });
    },
    pull() {
      source.resume();
    },
    cancel() {
      settled = true;
      stop();
    },
  });
  return { body, decoded: chain.length > 0 };
}

/** Releases bytes with every secret form redacted, holding back what could still begin one. */
class StreamRedactor {
  readonly #secrets: readonly string[];
  readonly #forms: Buffer[];
  /** The tail that could be the start of a form: released once the next chunk says it is not. */
  #held: Buffer = Buffer.alloc(0);

  constructor(secrets: readonly string[]) {
    this.#secrets = secrets;
    this.#forms = secrets.flatMap((s) => secretForms(s)).map((f) => Buffer.from(f));
  }

  push(chunk: Buffer): Uint8Array {
    if (this.#forms.length === 0) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const buf = Buffer.concat([this.#held, chunk]);
    // Only a tail that begins a form is held: anything else (an event's closing blank line) is
    // released now, so a reader waiting on it is not kept waiting for bytes that may never come.
    let cut = buf.length - this.#pendingPrefix(buf);
    // A whole form across the cut is released with the part before it, never split.
    for (let moved = true; moved; ) {
      moved = false;
      for (const form of this.#forms) {
        for (let at = buf.indexOf(form, Math.max(0, cut - form.length + 1)); at !== -1 && at < cut; at = buf.indexOf(form, at + 1)) {
          if (at + form.length > cut) {
            cut = at + form.length;
            moved = true;
          }
        }
      }
    }
    this.#held = Buffer.from(buf.subarray(cut));
    return redactBytes(buf.subarray(0, cut), this.#secrets);
  }

  /** The length of the longest tail of `buf` that is the start (not the whole) of some form. */
  #pendingPrefix(buf: Buffer): number {
    let longest = 0;
    for (const form of this.#forms) {
      for (let n = Math.min(form.length - 1, buf.length); n > longest; n--) {
        if (buf.subarray(buf.length - n).equals(form.subarray(0, n))) {
          longest = n;
          break;
        }
      }
    }
    return longest;
  }

  end(): Uint8Array {
    const rest = this.#held;
    this.#held = Buffer.alloc(0);
    return this.#forms.length === 0 ? rest : redactBytes(rest, this.#secrets);
  }
}

function header(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}
