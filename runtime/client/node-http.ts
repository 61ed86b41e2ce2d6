/**
 * What carries a client's requests to a server: Node's own `http`/`https`, not the global
 * `fetch`. A command through a server is a short process, and `fetch` loads and compiles undici
 * (with its WebAssembly HTTP parser) on first use: ~0.1 s of CPU, a third of `clawhive call`'s
 * whole cost through a server, where `http` is already in Node's startup snapshot.
 *
 * It does what the client needed of `fetch` and no more: one request, its answer's status and
 * body (read whole, or streamed for an event stream), abortable, with undici's idle limit (no
 * byte for 300 s ends the request, as `fetch` did). Redirects are not followed: the API never
 * redirects, and a redirect to elsewhere must not take the bearer token along.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import type { Answer, Outgoing } from "./wire.js";

/** No byte from the server for this long ends the request (undici's headers and body timeouts). */
export const IDLE_LIMIT_MS = 300_000;

export async function nodeFetch(url: URL, init: Outgoing): Promise<Answer> {
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError(`unsupported protocol ${url.protocol}`);
  const request = url.protocol === "https:" ? (await import("node:https")).request : httpRequest;
  const signal = init.signal;
  signal?.throwIfAborted();
  return new Promise<Answer>((resolve, reject) => {
    let req: ClientRequest;
    let res: IncomingMessage | undefined;
    // Before the answer the request fails with it; after, the body being read does.
    const abort = () => {
      const error = abortError();
      if (res === undefined) req.destroy(error);
      else res.destroy(error);
    };
    try {
      req = request(url, { method: init.method, headers: withLength(init.headers, init.body), timeout: IDLE_LIMIT_MS });
    } catch (error) {
      reject(error as Error);
      return;
    }
    signal?.addEventListener("abort", abort, { once: true });
    const settle = () => signal?.removeEventListener("abort", abort);
    req.on("timeout", () => req.destroy(Object.assign(new Error(`no answer from the server for ${IDLE_LIMIT_MS / 1000} s`), { code: "ETIMEDOUT" })));
    req.on("error", (error) => {
      settle();
      reject(error);
    });
    req.on("response", (answer: IncomingMessage) => {
      res = answer;
      answer.on("close", settle);
      resolve(answerOf(answer));
    });
    req.end(init.body === undefined ? undefined : typeof init.body === "string" ? init.body : Buffer.from(init.body.buffer, init.body.byteOffset, init.body.byteLength));
  });
}

function withLength(headers: Readonly<Record<string, string>>, body: string | Uint8Array | undefined): Record<string, string> {
  if (body === undefined) return { ...headers };
  return { ...headers, "content-length": String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength) };
}

function answerOf(res: IncomingMessage): Answer {
  const status = res.statusCode ?? 0;
  let read = false;
  return {
    status,
    statusText: res.statusMessage ?? "",
    ok: status >= 200 && status < 300,
    async text() {
      if (read) throw new TypeError("the answer's body was already read");
      read = true;
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    body: res,
  };
}

function abortError(): Error {
  return new DOMException("the request was aborted", "AbortError");
}
