import { request, type ClientRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import type { Hono } from "hono";
import type { Env } from "hono";
import { API_SERVER_OPTIONS } from "../../runtime/api/app.js";
import { openTokenStore, type TokenStore } from "../../runtime/api/auth/index.js";
import { openStore, type Clock, type Store } from "../../runtime/store/index.js";

/** A token store on a fresh `:memory:` store. */
export async function memoryTokens(clock: Clock = { now: () => Date.now() }): Promise<{ store: Store; tokens: TokenStore }> {
  const store = await openStore({ url: ":memory:" });
  return { store, tokens: await openTokenStore(store, { clock }) };
}

export interface Listening {
  port: number;
  base: string;
  close(): Promise<void>;
}

/** Serves `app` over real HTTP on 127.0.0.1, on a free port, as `clawhive serve` does. */
export async function listen<E extends Env>(app: Hono<E>): Promise<Listening> {
  let server: ServerType | undefined;
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0, serverOptions: { ...API_SERVER_OPTIONS } }, () => resolve());
  });
  const port = (server!.address() as AddressInfo).port;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server!.close(() => resolve());
      }),
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface RawRequest {
  method?: string;
  /** Sent exactly as given: `fetch` would resolve `..` and `%2e%2e` before sending. */
  path: string;
  headers?: Record<string, string>;
  /** Written chunk by chunk; without a Content-Length header Node sends them chunked. */
  chunks?: readonly (string | Buffer)[];
}

/** One request over `node:http`, which leaves the request target and the headers as they are. */
export function raw(port: number, input: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method: input.method ?? "GET", path: input.path, headers: input.headers ?? {}, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (chunk: Buffer) => parts.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString("utf8") }));
      res.on("error", reject);
    });
    // A server that answers before reading the whole body may close the socket under our
    // writes: the answer still arrives; only a socket closed with no answer is a failure.
    let answered = false;
    req.on("response", () => (answered = true));
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    req.on("close", () => {
      if (!answered) reject(new Error(`${input.method ?? "GET"} ${input.path}: the socket closed before a response`));
    });
    void (async () => {
      for (const chunk of input.chunks ?? []) {
        if (req.destroyed) return;
        if (!req.write(chunk)) await drainedOrClosed(req);
      }
      req.end();
    })();
  });
}

function drainedOrClosed(req: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off("drain", done).off("close", done);
      resolve();
    };
    req.on("drain", done).on("close", done);
  });
}

export function errorOf(text: string): { code: string; message: string; field?: string } {
  const body = JSON.parse(text) as { error?: { code: string; message: string; field?: string } };
  if (body.error === undefined) throw new Error(`not an error body: ${text}`);
  return body.error;
}

/**
 * A JSON call to a listening app: `token` is sent as a bearer token, `body` as JSON. The answer's
 * body is parsed (null when empty). For tests; `any` so they can reach into answers freely.
 */
export async function jsonCall(base: string, method: string, path: string, options: { token: string; body?: unknown }): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${options.token}`, ...(options.body === undefined ? {} : { "content-type": "application/json" }) },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}
