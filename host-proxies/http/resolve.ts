/**
 * DNS once, then pin. The host is resolved a single time; every address in the answer is
 * vetted; the connection goes to those vetted addresses through the `lookup` hook of
 * `http(s).request`, so nothing re-resolves the name between the check and the connect
 * (DNS rebinding: a short-TTL name that answers public for the check and 127.0.0.1 for the
 * connect). An answer mixing public and non-public addresses is refused whole: it is the shape
 * of a rebinding attack, and "connect to the public one" would rely on address ordering.
 */
import { promises as dns } from "node:dns";
import type { LookupAddress } from "node:dns";
import { HostProxyError } from "../types.js";
import { classifyAddress } from "./address.js";
import type { AddressClass } from "./address.js";
import { HTTP_DENIAL_REASONS, httpDenied } from "./reasons.js";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name → addresses. Injected in tests; the default asks the system resolver. */
export type Resolver = (host: string) => Promise<readonly ResolvedAddress[]>;

/** `dns.lookup` (getaddrinfo: /etc/hosts, then DNS), every address, in the resolver's order. */
export const systemResolver: Resolver = async (host) => {
  const answers = await dns.lookup(host, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** More addresses than this in one answer is not a host we need to reach. */
export const MAX_RESOLVED_ADDRESSES = 32;

/** Vetted, canonical addresses for one host, in the order they will be tried. */
export interface PinnedAddresses {
  host: string;
  /** True when `host` was an IP literal: nothing was resolved. */
  literal: boolean;
  addresses: readonly AddressClass[];
}

export interface PinOptions {
  resolver: Resolver;
  /** The grant's `allow_addresses`: canonical addresses allowed although not public. */
  allowAddresses: readonly string[];
  signal?: AbortSignal;
}

/** Resolves (unless `host` is an IP literal) and vets; throws `address-not-allowed`. */
export async function pinAddresses(host: string, options: PinOptions): Promise<PinnedAddresses> {
  const literal = classifyAddress(host);
  if (literal !== undefined) {
    vetAddress(literal, { host, allowAddresses: options.allowAddresses });
    return { host, literal: true, addresses: [literal] };
  }
  const answers = await resolveWithin(host, options);
  const addresses = answers.map((a) => {
    const parsed = classifyAddress(a.address);
    if (parsed === undefined) throw HostProxyError.io(`${host}: the resolver answered ${JSON.stringify(a.address)}, not an address`);
    return parsed;
  });
  const mixed = addresses.some((a) => a.kind === "public") && addresses.some((a) => a.kind !== "public");
  for (const address of addresses) vetAddress(address, { host, allowAddresses: options.allowAddresses, mixed });
  return { host, literal: false, addresses };
}

/** Throws `address-not-allowed` unless `address` is public or listed exactly. */
export function vetAddress(address: AddressClass, options: { host: string; allowAddresses: readonly string[]; mixed?: boolean }): void {
  if (address.kind === "public" || options.allowAddresses.includes(address.address)) return;
  const where = options.host === address.address ? address.address : `${options.host} resolves to ${address.address}`;
  const tell = options.mixed ? " alongside public addresses (a DNS rebinding pattern)" : "";
  throw httpDenied(
    HTTP_DENIAL_REASONS.addressNotAllowed,
    `${where}${tell}: a ${address.kind} address (${address.range ?? "not public"}); list it in allow_addresses to reach it`,
  );
}

async function resolveWithin(host: string, options: PinOptions): Promise<readonly ResolvedAddress[]> {
  let answers: readonly ResolvedAddress[];
  try {
    answers = await abortable(options.resolver(host), options.signal);
  } catch (err) {
    if (err instanceof HostProxyError) throw err;
    if (options.signal?.aborted) throw err;
    const code = (err as { code?: unknown }).code;
    if (code === "ENOTFOUND" || code === "ENODATA") throw HostProxyError.notFound(`${host}: no such host`);
    throw HostProxyError.io(`${host}: name resolution failed${typeof code === "string" ? ` (${code})` : ""}`, err);
  }
  if (!Array.isArray(answers) || answers.length === 0) throw HostProxyError.notFound(`${host}: no such host`);
  if (answers.length > MAX_RESOLVED_ADDRESSES) throw HostProxyError.io(`${host}: more than ${MAX_RESOLVED_ADDRESSES} addresses`);
  return answers;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The `lookup` option for `http(s).request`: answers with the pinned addresses and never asks
 * DNS. Node calls it with `{all: true}` when it may try several addresses (autoSelectFamily).
 */
export function pinnedLookup(pinned: PinnedAddresses) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    const first = pinned.addresses[0];
    if (hostname !== pinned.host || first === undefined) {
      const err: NodeJS.ErrnoException = new Error(`lookup of ${hostname} is not the pinned host ${pinned.host}`);
      err.code = "ENOTFOUND";
      callback(err, "");
      return;
    }
    if (options.all) callback(null, pinned.addresses.map((a) => ({ address: a.address, family: a.family })));
    else callback(null, first.address, first.family);
  };
}
