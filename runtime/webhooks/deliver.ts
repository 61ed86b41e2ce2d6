/**
 * One delivery attempt: a POST on a pinned, vetted address (the http proxy's DNS pinning: what
 * was checked is what is connected to), a deadline for the whole exchange, the answer's body
 * read only up to a few KiB and dropped.
 */
import { classifyAddress, pinAddresses, systemResolver, type Resolver } from "../../host-proxies/http/index.js";
import { sendRequest } from "../../host-proxies/http/send.js";
import type { CanonicalHttpRequest } from "../../host-proxies/http/types.js";

export interface DeliveryRequest {
  readonly url: string;
  readonly allowLoopback: boolean;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly timeoutMs: number;
  readonly resolver?: Resolver;
}

/** Resolves with the HTTP status; rejects on a refused address, a network error or the deadline. */
export async function postDelivery(request: DeliveryRequest): Promise<number> {
  const url = new URL(request.url);
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const resolver = request.resolver ?? systemResolver;
  const literal = classifyAddress(host);
  const answers = literal === undefined ? await resolver(host) : [];
  const allowAddresses = !request.allowLoopback ? [] : literal !== undefined ? [literal.address] : answers.flatMap((a) => classifyAddress(a.address)?.address ?? []);
  const signal = AbortSignal.timeout(request.timeoutMs);
  const pinned = await pinAddresses(host, { resolver: async () => answers, allowAddresses, signal });
  const body = new TextEncoder().encode(request.body);
  const scheme = url.protocol === "https:" ? "https" : "http";
  const port = url.port === "" ? (scheme === "https" ? 443 : 80) : Number(url.port);
  const canonical = { method: "POST", url: url.href, scheme, host, port, target: `${url.pathname}${url.search}`, headers: [], body } as unknown as CanonicalHttpRequest;
  const headers = [
    { name: "host", value: url.host },
    { name: "content-type", value: "application/json" },
    { name: "content-length", value: String(body.byteLength) },
    { name: "user-agent", value: "clawhive-webhooks" },
    ...Object.entries(request.headers).map(([name, value]) => ({ name, value })),
  ];
  const response = await sendRequest(canonical, { pinned, headers, signal, connectTimeoutMs: request.timeoutMs, maxHeaderBytes: 16 * 1024, maxHeaderCount: 100 });
  let read = 0;
  await new Promise<void>((resolve) => {
    response.on("data", (chunk: Buffer) => {
      read += chunk.length;
      if (read > 8 * 1024) response.destroy();
    });
    response.on("end", resolve);
    response.on("close", resolve);
    response.on("error", () => resolve());
  });
  return response.statusCode ?? 0;
}
