/**
 * One delivery attempt: a POST on a pinned, vetted address (the http proxy's DNS pinning: what
 * was checked is what is connected to), a deadline for the whole exchange, the answer's body
 * read only up to a few KiB (what a service says about a refusal: Telegram's `retry_after`).
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

export interface DeliveryAnswer {
  readonly status: number;
  /** `Retry-After` as the receiver sent it, if it did. */
  readonly retryAfter: string | undefined;
  /** The first 8 KiB of the answer's body, as UTF-8. */
  readonly body: string;
}

/** Answer kept at most: enough for a service's error object, never a large page held in memory. */
const ANSWER_BYTES = 8 * 1024;

/** Resolves with the receiver's answer; rejects on a refused address, a network error or the deadline. */
export async function postDelivery(request: DeliveryRequest): Promise<DeliveryAnswer> {
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
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve) => {
    response.on("data", (chunk: Buffer) => {
      if (read < ANSWER_BYTES) chunks.push(chunk.subarray(0, ANSWER_BYTES - read));
      read += chunk.length;
      if (read > ANSWER_BYTES) response.destroy();
    });
    response.on("end", resolve);
    response.on("close", resolve);
    response.on("error", () => resolve());
  });
  const retryAfter = response.headers["retry-after"];
  return { status: response.statusCode ?? 0, retryAfter: typeof retryAfter === "string" ? retryAfter : undefined, body: Buffer.concat(chunks).toString("utf8") };
}
