/**
 * The http host proxy of one instance: its grant and limits are fixed at creation. `fetch`
 * takes a request the policy has already decided (canonicalised by `canonicalize`, the same
 * pure function the gate used) and, for every hop: re-decides it against the proxy's own
 * grant (so a gate bug cannot widen what a plugin reaches), asks the caller's `checkHop` for
 * redirects, resolves the name once and vets every address, attaches credentials only where
 * credentials.ts allows, and connects to the vetted address.
 */
import type { IncomingMessage } from "node:http";
import { InvalidInputError } from "../../runtime/errors.js";
import { matchHttpRequest } from "./resource.js";
import type { HttpResource } from "./resource.js";
import { HostProxyError } from "../types.js";
import { ACCEPT_ENCODING, readBody } from "./body.js";
import { canonicalizeHttpRequest } from "./canonicalize.js";
import { credentialHeaders, credentialsFor } from "./credentials.js";
import type { SecretResolver } from "./credentials.js";
import { toHostProxyError } from "./errors.js";
import { checkLimits } from "./limits.js";
import type { HttpLimits } from "./limits.js";
import { HTTP_DENIAL_REASONS, httpDenied } from "./reasons.js";
import { nextHop, originOf, redirectLocation } from "./redirect.js";
import { redactBytes, redactText } from "./redact.js";
import { pinAddresses, systemResolver } from "./resolve.js";
import type { Resolver } from "./resolve.js";
import { sendRequest } from "./send.js";
import { streamBody } from "./stream-body.js";
import type { CanonicalHttpRequest, CanonicalizedHttpRequest, HopCheck, HopRefusedListener, HttpHeader, HttpResponse, HttpStreamedResponse, RawHttpRequest } from "./types.js";

export interface HttpProxyOptions extends Partial<HttpLimits> {
  /** Reads a grant credential's secret by name; required when the grant has credentials. */
  resolveSecret?: SecretResolver;
  /** Name → addresses; default `dns.lookup` with `{all: true, verbatim: true}`. */
  resolver?: Resolver;
  /** Extra trust anchors for https (a private CA, a test server). */
  ca?: string | Buffer | Array<string | Buffer>;
}

export interface FetchOptions {
  /** Decides each redirect hop (policy layers beyond the proxy's own grant). */
  checkHop?: HopCheck;
  /** Told of each redirect hop refused (by the grant, `checkHop`, the address vetting or the hop limit). */
  onHopRefused?: HopRefusedListener;
  /** Cancels the fetch (e.g. the run's deadline). */
  signal?: AbortSignal;
}

/** `clawhive:host/http` for one instance. Methods throw `HostProxyError` only. */
export interface HttpProxy {
  /** The same pure canonicaliser the policy gate runs, with this grant's credential headers. */
  canonicalize(raw: RawHttpRequest): CanonicalizedHttpRequest;
  fetch(canonical: CanonicalHttpRequest, options?: FetchOptions): Promise<HttpResponse>;
  /**
   * The same exchange, the body handed on as it arrives (stream-body.ts: decoded, capped and
   * redacted as `fetch` does); the deadline covers the whole body. For the runtime's own
   * clients (an MCP server's event stream), not a guest's host call.
   */
  open(canonical: CanonicalHttpRequest, options?: FetchOptions): Promise<HttpStreamedResponse>;
}

/** Throws `InvalidInputError` on bad limits, or credentials without `resolveSecret`. */
export function createHttpProxy(grant: HttpResource, options: HttpProxyOptions = {}): HttpProxy {
  const limits = checkLimits(options);
  if (grant.credentials.length > 0 && typeof options.resolveSecret !== "function") {
    throw new InvalidInputError("the grant attaches credentials: createHttpProxy needs resolveSecret", { field: "resolveSecret" });
  }
  return new GrantedHttpProxy(deepFreeze(structuredClone(grant)), { ...options, limits });
}

type FollowOptions = Pick<FetchOptions, "checkHop" | "onHopRefused"> & { signal: AbortSignal };

/** The absolute URL a Location names, or the Location itself (scrubbed later) when it is no URL. */
function resolvedLocation(location: string, base: string): string {
  try {
    return new URL(location, base).href;
  } catch {
    return location.slice(0, 2048);
  }
}

/** What the last hop's response becomes: read whole (`fetch`) or streamed (`open`). */
type Finish<T> = (hop: CanonicalHttpRequest, response: IncomingMessage, exchange: Exchange) => Promise<T>;

interface Exchange {
  readonly origin: string;
  /** False from the first hop that leaves the first request's origin, for good. */
  sameOrigin: boolean;
  redirects: number;
  /** Secret values sent so far: redacted from whatever comes back. */
  readonly secrets: string[];
  url: string;
}

class GrantedHttpProxy implements HttpProxy {
  readonly #grant: HttpResource;
  readonly #limits: HttpLimits;
  readonly #resolver: Resolver;
  readonly #resolveSecret: SecretResolver | undefined;
  readonly #ca: HttpProxyOptions["ca"];

  constructor(grant: HttpResource, options: HttpProxyOptions & { limits: HttpLimits }) {
    this.#grant = grant;
    this.#limits = options.limits;
    this.#resolver = options.resolver ?? systemResolver;
    this.#resolveSecret = options.resolveSecret;
    this.#ca = options.ca;
  }

  canonicalize(raw: RawHttpRequest): CanonicalizedHttpRequest {
    return canonicalizeHttpRequest(raw, { credentials: this.#grant.credentials });
  }

  fetch(canonical: CanonicalHttpRequest, options: FetchOptions = {}): Promise<HttpResponse> {
    return this.#exchange(canonical, options, (hop, response, exchange) => this.#finish(hop, response, exchange));
  }

  open(canonical: CanonicalHttpRequest, options: FetchOptions = {}): Promise<HttpStreamedResponse> {
    return this.#exchange(canonical, options, async (hop, response, exchange) => {
      const status = response.statusCode ?? 0;
      const maxBytes = Math.min(hop.maxBytes ?? this.#limits.maxResponseBytes, this.#limits.maxResponseBytes);
      const bodyless = hop.method === "HEAD" || status === 204 || status === 304;
      const streamed = bodyless ? (response.resume(), { body: new ReadableStream<Uint8Array>({ start: (c) => c.close() }), decoded: false }) : streamBody(response, { maxBytes, secrets: exchange.secrets });
      const secrets = exchange.secrets;
      return {
        status,
        url: redactText(hop.url, secrets),
        headers: responseHeaders(response, streamed.decoded).map((h) => ({ name: h.name, value: redactText(h.value, secrets) })),
        body: streamed.body,
        redirects: exchange.redirects,
      };
    });
  }

  async #exchange<T>(canonical: CanonicalHttpRequest, options: FetchOptions, finish: Finish<T>): Promise<T> {
    const timeoutMs = Math.min(canonical.timeoutMs ?? this.#limits.defaultTimeoutMs, this.#limits.maxTimeoutMs);
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = options.signal === undefined ? deadline : AbortSignal.any([deadline, options.signal]);
    const exchange: Exchange = { origin: originOf(canonical), sameOrigin: true, redirects: 0, secrets: [], url: canonical.url };
    try {
      if ((canonical.body?.byteLength ?? 0) > this.#limits.maxRequestBytes) {
        throw HostProxyError.invalidInput(`${canonical.url}: request body larger than ${this.#limits.maxRequestBytes} bytes`);
      }
      this.#decide(canonical);
      return await this.#follow(canonical, exchange, { checkHop: options.checkHop, onHopRefused: options.onHopRefused, signal }, finish);
    } catch (err) {
      const mapped = toHostProxyError(err, { url: exchange.url, ...(deadline.aborted ? { timedOutAfterMs: timeoutMs } : {}) });
      if (exchange.secrets.length === 0) throw mapped;
      // A server-chosen Location can echo a secret into an error message.
      const scrub = (text: string) => redactText(text, exchange.secrets);
      const val = mapped.hostError.tag === "denied" ? { ...mapped.hostError.val, message: scrub(mapped.hostError.val.message) } : scrub(mapped.hostError.val);
      throw new HostProxyError({ ...mapped.hostError, val } as typeof mapped.hostError, { cause: mapped.cause });
    }
  }

  async #follow<T>(first: CanonicalHttpRequest, exchange: Exchange, options: FollowOptions, finish: Finish<T>): Promise<T> {
    let hop = first;
    let previous = first.url;
    for (;;) {
      exchange.url = hop.url;
      const from = hop;
      // A hop refused when sent (its address vetted): reported like one refused before.
      const response = exchange.redirects === 0 ? await this.#send(hop, exchange, options.signal) : await this.#refusing(options, exchange, { url: previous, method: from.method }, () => this.#send(from, exchange, options.signal));
      previous = hop.url;
      const location = hop.followRedirects ? redirectLocation(response) : undefined;
      if (location === undefined) return finish(hop, response, exchange);
      response.destroy();
      exchange.redirects++;
      exchange.url = resolvedLocation(location, hop.url);
      hop = await this.#refusing(options, exchange, from, async () => {
        if (exchange.redirects > this.#limits.maxRedirects) {
          throw httpDenied(HTTP_DENIAL_REASONS.tooManyRedirects, `${from.url}: more than ${this.#limits.maxRedirects} redirects`);
        }
        const next = nextHop(from, { status: response.statusCode ?? 0, location, credentials: this.#grant.credentials });
        exchange.url = next.canonical.url;
        this.#decide(next.canonical);
        await checkRedirect(options.checkHop, { index: exchange.redirects, from: from.url, ...next });
        return next.canonical;
      });
      exchange.sameOrigin &&= originOf(hop) === exchange.origin;
    }
  }

  /**
   * Runs one step of a redirect hop; a refusal (tag `denied`) is reported to `onHopRefused`
   * (the caller audits it as a denial of its own) before it ends the fetch.
   */
  async #refusing<T>(options: FollowOptions, exchange: Exchange, from: { url: string; method: string }, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (err) {
      if (options.onHopRefused && err instanceof HostProxyError && err.hostError.tag === "denied") {
        const scrub = (text: string) => redactText(text, exchange.secrets);
        const denial = { ...err.hostError.val, message: scrub(err.hostError.val.message) };
        // A refusal that cannot be recorded is still a refusal; the fetch's own outcome says denied.
        await Promise.resolve(options.onHopRefused({ index: exchange.redirects, from: scrub(from.url), to: scrub(exchange.url), method: from.method, denial })).catch(() => undefined);
      }
      throw err;
    }
  }

  /** The proxy's own grant, on every hop: the gate decided too, but a gate bug must not widen this. */
  #decide(hop: CanonicalHttpRequest): void {
    const decision = matchHttpRequest(this.#grant, { scheme: hop.scheme, host: hop.host, port: hop.port, method: hop.method });
    if (!decision.allow) throw new HostProxyError({ tag: "denied", val: decision.denial });
  }

  async #send(hop: CanonicalHttpRequest, exchange: Exchange, signal: AbortSignal): Promise<IncomingMessage> {
    const pinned = await pinAddresses(hop.host, { resolver: this.#resolver, allowAddresses: this.#grant.allow_addresses, signal });
    const credentials = exchange.sameOrigin ? credentialsFor(this.#grant, hop.host) : [];
    const attached = await credentialHeaders(credentials, { scheme: hop.scheme, pinned, resolveSecret: this.#resolveSecret });
    exchange.secrets.push(...attached.secrets);
    const limits = this.#limits;
    return sendRequest(hop, {
      pinned,
      headers: requestHeaders(hop, attached.headers),
      signal,
      connectTimeoutMs: limits.connectTimeoutMs,
      maxHeaderBytes: limits.maxResponseHeaderBytes,
      maxHeaderCount: limits.maxResponseHeaders,
      ca: this.#ca,
    });
  }

  async #finish(hop: CanonicalHttpRequest, response: IncomingMessage, exchange: Exchange): Promise<HttpResponse> {
    const status = response.statusCode ?? 0;
    const maxBytes = Math.min(hop.maxBytes ?? this.#limits.maxResponseBytes, this.#limits.maxResponseBytes);
    // No body by definition (RFC 9110 §6.4.1): a content-encoding on these must not start a decoder.
    const bodyless = hop.method === "HEAD" || status === 204 || status === 304;
    const read = bodyless ? (response.resume(), { body: new Uint8Array(0), truncated: false, decoded: false }) : await readBody(response, { maxBytes });
    const secrets = exchange.secrets;
    return {
      status,
      url: redactText(hop.url, secrets),
      headers: responseHeaders(response, read.decoded).map((h) => ({ name: h.name, value: redactText(h.value, secrets) })),
      body: redactBytes(read.body, secrets, { truncated: read.truncated }),
      truncated: read.truncated,
      redirects: exchange.redirects,
    };
  }
}

async function checkRedirect(checkHop: HopCheck | undefined, hop: Parameters<HopCheck>[0]): Promise<void> {
  if (checkHop === undefined) return;
  let denial;
  try {
    denial = await checkHop(hop);
  } catch (err) {
    if (err instanceof HostProxyError) throw err;
    throw HostProxyError.io(`${hop.canonical.url}: the redirect check failed`, err);
  }
  if (denial !== undefined) throw new HostProxyError({ tag: "denied", val: denial });
}

function requestHeaders(hop: CanonicalHttpRequest, credentials: readonly HttpHeader[]): HttpHeader[] {
  // Built from the decided host and port, never re-read from the URL string.
  const name = hop.host.includes(":") ? `[${hop.host}]` : hop.host;
  const host = hop.port === (hop.scheme === "https" ? 443 : 80) ? name : `${name}:${hop.port}`;
  const headers: HttpHeader[] = [{ name: "host", value: host }, ...hop.headers, ...credentials];
  headers.push({ name: "accept-encoding", value: ACCEPT_ENCODING });
  const mayHaveBody = hop.body !== undefined || hop.method === "POST" || hop.method === "PUT" || hop.method === "PATCH";
  if (mayHaveBody) headers.push({ name: "content-length", value: String(hop.body?.byteLength ?? 0) });
  return headers;
}

function responseHeaders(response: IncomingMessage, decoded: boolean): HttpHeader[] {
  const out: HttpHeader[] = [];
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? "").toLowerCase();
    // The body handed back is decoded: its old encoding and length would describe other bytes.
    if (decoded && (name === "content-encoding" || name === "content-length")) continue;
    out.push({ name, value: raw[i + 1] ?? "" });
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
