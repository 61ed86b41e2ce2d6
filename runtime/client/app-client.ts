/**
 * A client answered by an API app in this process: each request goes to the app's `fetch`, as
 * an admin under a token made for this client alone, so nothing outside the process can present
 * it. Which routes answer is the app's: a runtime's (in-process.ts) or the store's (store-reader.ts).
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Principal } from "../api/auth/principal.js";
import { newTokenId } from "../api/auth/token-text.js";
import { ApiClawhiveClient } from "./client.js";
import { ApiClient, type Fetch } from "./transport.js";

/** A loopback name the API's Host check accepts: requests never leave the process. */
const IN_PROCESS_URL = "http://127.0.0.1";

/** How the app this client calls checks its token. */
export interface TokenCheck {
  verify(text: string): Promise<Principal | undefined>;
}

/**
 * A client answered by the app `build` makes, in this process, as an admin (recorded as `actor`
 * when given). `localSources`: the app reads plugin sources named by path (a runtime's app
 * does). `close` is called when the client is closed.
 */
export function appClient(build: (tokens: TokenCheck) => { fetch(request: Request): Response | Promise<Response> }, options: { actor?: string; localSources?: boolean; close?: () => Promise<void> } = {}): ApiClawhiveClient {
  const secret = randomBytes(32).toString("base64url");
  const principal: Principal = { tokenId: newTokenId(), role: "admin", ...(options.actor === undefined ? {} : { actor: options.actor }) };
  const expected = Buffer.from(secret);
  const app = build({
    verify: async (text: string): Promise<Principal | undefined> => {
      const given = Buffer.from(text);
      return given.length === expected.length && timingSafeEqual(given, expected) ? principal : undefined;
    },
  });
  const carry: Fetch = async (url, { method, headers, body, signal }) => {
    const init: RequestInit = { method, headers, ...(body === undefined ? {} : { body: body as string | Uint8Array<ArrayBuffer> }), ...(signal === undefined ? {} : { signal }) };
    return abortable(await app.fetch(new Request(url, init)), signal);
  };
  const api = new ApiClient({ url: IN_PROCESS_URL, token: secret }, { fetch: carry });
  return new ApiClawhiveClient(api, { target: "in-process", ...(options.localSources ? { localSources: true } : {}), ...(options.close === undefined ? {} : { close: options.close }) });
}

/**
 * The response with a body that ends when `signal` aborts, as a socket's does. In this process
 * nothing else ends it: an event stream waiting for a run's next event (one that waits for a
 * person) would hold its reader, and the command that stopped following it, for good.
 */
function abortable(response: Response, signal: AbortSignal | null | undefined): Response {
  if (!signal || response.body === null) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const stop = () => {
        try {
          controller.error(signal.reason ?? new DOMException("the request was aborted", "AbortError"));
        } catch {
          // already closed or errored
        }
        void reader.cancel().catch(() => undefined);
      };
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });
    },
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        try {
          controller.error(error);
        } catch {
          // already errored by the abort
        }
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
