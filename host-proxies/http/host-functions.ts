/**
 * The bridge's view of the http proxy: one function per `clawhive:host/http` import, keyed by
 * the camelCase name jco gives it, taking the raw argument list a guest sent. The request
 * record is checked here, at the edge, because it comes from guest memory, not typed code.
 */
import { HostProxyError } from "../types.js";
import type { FetchOptions, HttpProxy } from "./proxy.js";
import type { HttpHeader, RawHttpRequest } from "./types.js";

/** One host function as the bridge calls it. Rejects with `HostProxyError` only. */
type HostFunction = (args: unknown[]) => Promise<unknown>;

export const HTTP_HOST_FUNCTION_NAMES = ["fetch"] as const;
export type HttpHostFunctionName = (typeof HTTP_HOST_FUNCTION_NAMES)[number];

const FIELDS = ["method", "url", "headers", "body", "timeoutMs", "maxBytes", "followRedirects"] as const;
const U32_MAX = 0xffff_ffff;
const U64_MAX = (1n << 64n) - 1n;

/**
 * A null-prototype, frozen table (see fsHostFunctions). `options.checkHop` decides every
 * redirect hop for the policy; without it only the proxy's own grant does.
 */
export function httpHostFunctions(proxy: HttpProxy, options: FetchOptions = {}): Record<string, HostFunction> {
  const table: Record<HttpHostFunctionName, HostFunction> = {
    fetch: async (args) => {
      if (!Array.isArray(args) || args.length !== 1) {
        throw HostProxyError.invalidInput(`http.fetch: expected 1 argument, got ${Array.isArray(args) ? args.length : typeof args}`);
      }
      const { canonical } = proxy.canonicalize(parseHttpRequestRecord(args[0]));
      return proxy.fetch(canonical, options);
    },
  };
  return Object.freeze(Object.assign(Object.create(null) as Record<string, HostFunction>, table));
}

/**
 * A guest's `request` record as jco lifts it, checked field by field; throws `invalid-input`.
 * The policy gate runs this too, before `canonicalizeHttpRequest`.
 */
export function parseHttpRequestRecord(value: unknown): RawHttpRequest {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw bad("request", "a record", value);
  const record = value as Record<string, unknown>;
  const extra = Object.keys(record).find((k) => !(FIELDS as readonly string[]).includes(k));
  if (extra !== undefined) throw HostProxyError.invalidInput(`http.fetch: request has no field ${JSON.stringify(extra.slice(0, 64))}`);
  const { method, url, headers, body, timeoutMs, maxBytes, followRedirects } = record;
  if (typeof method !== "string") throw bad("method", "a string", method);
  if (typeof url !== "string") throw bad("url", "a string", url);
  if (body !== undefined && !(body instanceof Uint8Array)) throw bad("body", "a Uint8Array", body);
  if (timeoutMs !== undefined && !(typeof timeoutMs === "number" && Number.isInteger(timeoutMs) && timeoutMs >= 0 && timeoutMs <= U32_MAX)) {
    throw bad("timeoutMs", "a u32", timeoutMs);
  }
  if (maxBytes !== undefined && !(typeof maxBytes === "bigint" && maxBytes >= 0n && maxBytes <= U64_MAX)) throw bad("maxBytes", "a u64 bigint", maxBytes);
  if (followRedirects !== undefined && typeof followRedirects !== "boolean") throw bad("followRedirects", "a boolean", followRedirects);
  return { method, url, headers: headerList(headers), body, timeoutMs, maxBytes, followRedirects };
}

function headerList(value: unknown): HttpHeader[] {
  if (!Array.isArray(value)) throw bad("headers", "a list", value);
  return value.map((h: unknown, i) => {
    if (typeof h !== "object" || h === null) throw bad(`headers[${i}]`, "a record", h);
    const { name, value: v, ...rest } = h as Record<string, unknown>;
    if (typeof name !== "string" || typeof v !== "string" || Object.keys(rest).length > 0) {
      throw bad(`headers[${i}]`, "{name: string, value: string}", h);
    }
    return { name, value: v };
  });
}

function bad(field: string, expected: string, got: unknown): HostProxyError {
  return HostProxyError.invalidInput(`http.fetch: ${field} must be ${expected}, got ${describe(got)}`);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return value.constructor?.name ?? "an object";
  return typeof value;
}
