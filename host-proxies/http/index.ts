/** `clawhive:host/http`: requests to granted hosts, on vetted addresses, with host-held credentials. */
export { canonicalizeHttpRequest, MAX_URL_LENGTH } from "./canonicalize.js";
export type { CanonicalizeHttpOptions } from "./canonicalize.js";
export { classifyAddress } from "./address.js";
export type { AddressClass, AddressKind } from "./address.js";
export { pinAddresses, systemResolver, vetAddress } from "./resolve.js";
export type { PinnedAddresses, PinOptions, ResolvedAddress, Resolver } from "./resolve.js";
export { HTTP_CAPABILITY, HTTP_DENIAL_REASONS } from "./reasons.js";
export type { HttpDenialReason } from "./reasons.js";
export { REDACTED } from "./redact.js";
export { createHttpProxy } from "./proxy.js";
export type { FetchOptions, HttpProxy, HttpProxyOptions } from "./proxy.js";
export { DEFAULT_HTTP_LIMITS } from "./limits.js";
export type { HttpLimits } from "./limits.js";
export type { SecretResolver } from "./credentials.js";
export { httpHostFunctions, parseHttpRequestRecord, HTTP_HOST_FUNCTION_NAMES } from "./host-functions.js";
export type { HttpHostFunctionName } from "./host-functions.js";
export type {
  CanonicalHttpRequest,
  CanonicalizedHttpRequest,
  HopCheck,
  HopRefusal,
  HopRefusedListener,
  HttpHeader,
  HttpHop,
  HttpResponse,
  HttpStreamedResponse,
  RawHttpRequest,
} from "./types.js";
