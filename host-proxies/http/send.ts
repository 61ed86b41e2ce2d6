/**
 * One HTTP exchange on a pinned address: the request line and headers are exactly the
 * canonical ones, the socket goes to a vetted address (`lookup` answers from the pin), and TLS
 * checks the certificate against the host name (SNI = the name, never the address). A fresh
 * connection per exchange (`agent: false`): a pooled socket would be keyed by name and port,
 * not by the grant that vetted it.
 */
import * as http from "node:http";
import type { IncomingMessage } from "node:http";
import * as https from "node:https";
import { HostProxyError } from "../types.js";
import { pinnedLookup } from "./resolve.js";
import type { PinnedAddresses } from "./resolve.js";
import type { CanonicalHttpRequest, HttpHeader } from "./types.js";

export interface SendOptions {
  pinned: PinnedAddresses;
  /** Every header to send, `host` included. */
  headers: readonly HttpHeader[];
  signal: AbortSignal;
  connectTimeoutMs: number;
  maxHeaderBytes: number;
  maxHeaderCount: number;
  /** Extra trust anchors for https (a private CA); the system store otherwise. */
  ca?: string | Buffer | Array<string | Buffer> | undefined;
}

/** Sends `request`; resolves with the response head, its body unread. */
export function sendRequest(request: CanonicalHttpRequest, options: SendOptions): Promise<IncomingMessage> {
  const { pinned } = options;
  const first = pinned.addresses[0];
  if (first === undefined) return Promise.reject(HostProxyError.io(`${request.url}: no vetted address`));
  const tls = request.scheme === "https";
  const common = {
    host: pinned.literal ? first.address : request.host,
    port: request.port,
    method: request.method,
    path: request.target,
    headers: options.headers.flatMap((h) => [h.name, h.value]),
    setHost: false,
    agent: false as const,
    lookup: pinnedLookup(pinned),
    autoSelectFamily: true,
    signal: options.signal,
    maxHeaderSize: options.maxHeaderBytes,
  };
  const req = tls
    ? https.request({ ...common, ...(pinned.literal ? {} : { servername: request.host }), ...(options.ca === undefined ? {} : { ca: options.ca }) })
    : http.request(common);
  req.maxHeadersCount = options.maxHeaderCount + 1;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const connectTimer = setTimeout(() => {
      req.destroy(HostProxyError.io(`${request.url}: no connection within ${options.connectTimeoutMs} ms`));
    }, options.connectTimeoutMs);
    req.once("socket", (socket) => {
      if (!socket.connecting) clearTimeout(connectTimer);
      else socket.once("connect", () => clearTimeout(connectTimer));
    });
    // `on`, not `once`: a second error (a reset after an abort) must not go unhandled.
    req.on("error", (err) => {
      clearTimeout(connectTimer);
      reject(err);
    });
    req.once("response", (response) => {
      clearTimeout(connectTimer);
      if (response.rawHeaders.length / 2 > options.maxHeaderCount) {
        response.destroy();
        reject(HostProxyError.io(`${request.url}: more than ${options.maxHeaderCount} response headers`));
        return;
      }
      resolve(response);
    });
    req.end(request.body === undefined ? undefined : Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength));
  });
}
