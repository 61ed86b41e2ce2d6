/**
 * Which addresses a request may reach. Anything not plainly public is refused unless the
 * grant's `allow_addresses` lists that exact canonical address: the point is SSRF (OWASP
 * SSRF Prevention Cheat Sheet; CWE-918) — an agent asked to "fetch this URL" must not become a
 * client inside the host's network or of the cloud metadata service (169.254.169.254).
 *
 * IPv6 is allow-listed: only global unicast (2000::/3, RFC 4291) minus the special ranges is
 * public. Addresses that embed an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by
 * the IPv4 address inside, because that is where the packets go.
 */
import { formatIpv4, inCidr, parseCidr, parseIp } from "./ip.js";
import type { ParsedIp } from "./ip.js";

export type AddressKind =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "cgnat"
  | "link-local"
  | "unique-local"
  | "multicast"
  | "broadcast"
  | "documentation"
  | "benchmark"
  | "reserved";

export interface AddressClass {
  /** The canonical spelling (as `allow_addresses` must list it). */
  address: string;
  family: 4 | 6;
  kind: AddressKind;
  /** The special range it fell in and its source, e.g. `127.0.0.0/8 (RFC 1122)`. */
  range?: string;
  /** For IPv6 forms carrying an IPv4 address: that address, which was judged. */
  embeddedIpv4?: string;
}

interface Range {
  cidr: string;
  kind: AddressKind;
  source: string;
}

// First match wins, so narrower ranges come before the wider ones they sit in.
const IPV4_RANGES: readonly Range[] = [
  // Linux and others connect 0.0.0.0 to the local host.
  { cidr: "0.0.0.0/8", kind: "unspecified", source: "RFC 791 'this network'" },
  { cidr: "10.0.0.0/8", kind: "private", source: "RFC 1918" },
  { cidr: "100.64.0.0/10", kind: "cgnat", source: "RFC 6598" },
  { cidr: "127.0.0.0/8", kind: "loopback", source: "RFC 1122" },
  { cidr: "169.254.0.0/16", kind: "link-local", source: "RFC 3927; cloud metadata 169.254.169.254" },
  { cidr: "172.16.0.0/12", kind: "private", source: "RFC 1918" },
  { cidr: "192.0.0.0/24", kind: "reserved", source: "RFC 6890 IETF protocol assignments" },
  { cidr: "192.0.2.0/24", kind: "documentation", source: "RFC 5737" },
  { cidr: "192.88.99.0/24", kind: "reserved", source: "RFC 7526 deprecated 6to4 relays" },
  { cidr: "192.168.0.0/16", kind: "private", source: "RFC 1918" },
  { cidr: "198.18.0.0/15", kind: "benchmark", source: "RFC 2544" },
  { cidr: "198.51.100.0/24", kind: "documentation", source: "RFC 5737" },
  { cidr: "203.0.113.0/24", kind: "documentation", source: "RFC 5737" },
  { cidr: "224.0.0.0/4", kind: "multicast", source: "RFC 5771" },
  { cidr: "255.255.255.255/32", kind: "broadcast", source: "RFC 919" },
  { cidr: "240.0.0.0/4", kind: "reserved", source: "RFC 1112" },
];

const IPV6_RANGES: readonly Range[] = [
  { cidr: "::/128", kind: "unspecified", source: "RFC 4291" },
  { cidr: "::1/128", kind: "loopback", source: "RFC 4291" },
  // Local-use NAT64 (RFC 8215): a translator inside the operator's network, any embedding.
  { cidr: "64:ff9b:1::/48", kind: "private", source: "RFC 8215 local-use NAT64" },
  { cidr: "100::/64", kind: "reserved", source: "RFC 6666 discard-only" },
  // Teredo (RFC 4380) hides its client IPv4 address XOR-ed and reaches it through a relay;
  // nothing a fetch needs, and not vettable by prefix.
  { cidr: "2001::/32", kind: "reserved", source: "RFC 4380 Teredo" },
  { cidr: "2001:2::/48", kind: "benchmark", source: "RFC 5180" },
  { cidr: "2001:db8::/32", kind: "documentation", source: "RFC 3849" },
  { cidr: "2001::/23", kind: "reserved", source: "RFC 2928 IETF protocol assignments" },
  { cidr: "3fff::/20", kind: "documentation", source: "RFC 9637" },
  { cidr: "fc00::/7", kind: "unique-local", source: "RFC 4193" },
  { cidr: "fe80::/10", kind: "link-local", source: "RFC 4291" },
  { cidr: "fec0::/10", kind: "private", source: "RFC 3879 deprecated site-local" },
  { cidr: "ff00::/8", kind: "multicast", source: "RFC 4291" },
];

/** IPv6 prefixes whose packets go to an IPv4 address held at `offset` (bytes). */
const EMBEDDING: ReadonlyArray<{ cidr: string; offset: number; name: string }> = [
  { cidr: "::ffff:0:0/96", offset: 12, name: "IPv4-mapped (RFC 4291 §2.5.5.2)" },
  { cidr: "64:ff9b::/96", offset: 12, name: "NAT64 (RFC 6052)" },
  { cidr: "2002::/16", offset: 2, name: "6to4 (RFC 3056)" },
  // IPv4-compatible (RFC 4291 §2.5.5.1, deprecated); `::` and `::1` matched earlier.
  { cidr: "::/96", offset: 12, name: "IPv4-compatible (RFC 4291 §2.5.5.1)" },
];

const GLOBAL_UNICAST = parseCidr("2000::/3");

function compile(ranges: readonly Range[]) {
  return ranges.map((r) => ({ ...r, ...parseCidr(r.cidr) }));
}
const V4 = compile(IPV4_RANGES);
const V6 = compile(IPV6_RANGES);
const EMBED = EMBEDDING.map((e) => ({ ...e, ...parseCidr(e.cidr) }));

/** Classifies an IP literal; `undefined` when `address` is not one. */
export function classifyAddress(address: string): AddressClass | undefined {
  const ip = parseIp(address);
  if (ip === undefined) return undefined;
  return ip.family === 4 ? classifyV4(ip) : classifyV6(ip);
}

function classifyV4(ip: ParsedIp): AddressClass {
  const range = V4.find((r) => inCidr(ip.bytes, r));
  if (range === undefined) return { address: ip.canonical, family: 4, kind: "public" };
  return { address: ip.canonical, family: 4, kind: range.kind, range: `${range.cidr} (${range.source})` };
}

function classifyV6(ip: ParsedIp): AddressClass {
  const base = { address: ip.canonical, family: 6 as const };
  const special = V6.find((r) => inCidr(ip.bytes, r));
  if (special !== undefined) return { ...base, kind: special.kind, range: `${special.cidr} (${special.source})` };
  const embed = EMBED.find((e) => inCidr(ip.bytes, e));
  if (embed !== undefined) {
    const v4 = formatIpv4(ip.bytes.subarray(embed.offset, embed.offset + 4));
    const inner = classifyV4({ family: 4, bytes: ip.bytes.subarray(embed.offset, embed.offset + 4), canonical: v4 });
    // The compatible form is deprecated and nothing routes it: refuse it even around a public address.
    const kind = inner.kind === "public" && embed.cidr === "::/96" ? "reserved" : inner.kind;
    const range = inner.range === undefined ? embed.name : `${embed.name} of ${inner.range}`;
    return { ...base, kind, embeddedIpv4: v4, ...(kind === "public" ? {} : { range }) };
  }
  if (!inCidr(ip.bytes, GLOBAL_UNICAST)) {
    return { ...base, kind: "reserved", range: "outside 2000::/3 global unicast (RFC 4291)" };
  }
  return { ...base, kind: "public" };
}

/** Whether packets to this address stay on the host itself. */
export function isLoopback(address: AddressClass): boolean {
  return address.kind === "loopback";
}
