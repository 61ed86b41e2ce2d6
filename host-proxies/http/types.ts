/**
 * The shapes of `clawhive:host/http` (wit/host/http.wit) as jco lifts them: records are
 * camelCase objects, `option<T>` is `T | undefined`, `list<u8>` is `Uint8Array`, `u64` is
 * `bigint`; and the canonical request the proxy decides on and acts on.
 */
import type { HttpMethod, HttpRequest } from "./resource.js";
import type { Denial } from "../types.js";

/** `header`. Names are compared case-insensitively; the proxy lowercases them. */
export interface HttpHeader {
  name: string;
  value: string;
}

/** `request`, exactly as the guest sent it. */
export interface RawHttpRequest {
  method: string;
  url: string;
  headers: HttpHeader[];
  body?: Uint8Array | undefined;
  timeoutMs?: number | undefined;
  /** `u64` from jco; typed callers may pass a number. */
  maxBytes?: bigint | number | undefined;
  followRedirects?: boolean | undefined;
}

/** A response whose body is read as it arrives (`HttpProxy.open`): decoded, capped, redacted. */
export interface HttpStreamedResponse {
  status: number;
  url: string;
  headers: HttpHeader[];
  body: ReadableStream<Uint8Array>;
  redirects: number;
}

/** `response`. */
export interface HttpResponse {
  status: number;
  /** The final URL, after redirects (secrets redacted). */
  url: string;
  headers: HttpHeader[];
  body: Uint8Array;
  truncated: boolean;
  redirects: number;
}

/**
 * A request after canonicalisation: what the policy decided (`request`) and everything the
 * effect needs, derived from one parse of the URL. Nothing here is re-read from the raw input.
 */
export interface CanonicalHttpRequest {
  method: HttpMethod;
  /** WHATWG-serialised, fragment dropped, default port omitted, no trailing dot on the host. */
  url: string;
  scheme: "http" | "https";
  /** Lowercase A-label name, dotted-quad IPv4 or unbracketed IPv6, as the policy sees it. */
  host: string;
  port: number;
  /** Path and query, as sent on the request line. */
  target: string;
  /** Lowercase names, validated values, in the order given. */
  headers: readonly HttpHeader[];
  body: Uint8Array | undefined;
  timeoutMs: number | undefined;
  maxBytes: number | undefined;
  followRedirects: boolean;
}

/** What `canonicalizeHttpRequest` returns: the canonical value and the policy's view of it. */
export interface CanonicalizedHttpRequest {
  canonical: CanonicalHttpRequest;
  /** The `HttpRequest` the catalogue's `http.fetch` matcher takes, per layer. */
  request: HttpRequest;
}

/** One redirect hop, as shown to the caller's `checkHop`. */
export interface HttpHop {
  /** 1 for the first redirect, 2 for the next… */
  index: number;
  /** The URL that answered with the redirect. */
  from: string;
  canonical: CanonicalHttpRequest;
  request: HttpRequest;
}

/**
 * Decides one redirect hop (the first request was decided before `fetch` was called).
 * Return a `Denial` (or throw a `HostProxyError`) to refuse it; `undefined` allows it.
 */
export type HopCheck = (hop: HttpHop) => Denial | undefined | Promise<Denial | undefined>;

/** A redirect hop that was refused: where it came from, where it led, and why. */
export interface HopRefusal {
  /** 1 for the first redirect, 2 for the next… */
  index: number;
  /** The URL that answered with the redirect (secrets the exchange sent are redacted). */
  from: string;
  /** The URL the hop led to, as far as it could be read. */
  to: string;
  method: string;
  denial: Denial;
}

export type HopRefusedListener = (refusal: HopRefusal) => void | Promise<void>;
