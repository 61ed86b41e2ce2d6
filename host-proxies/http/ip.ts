/**
 * IP literals as bytes, and their one canonical spelling: the one WHATWG URL prints
 * (dotted-quad IPv4; lowercase, shortest IPv6 with `::ffff:7f00:1` rather than
 * `::ffff:127.0.0.1`). `allow_addresses` is compared against this spelling, so an address
 * written two ways is one address (runtime/policy/catalogue/http.ts refuses other spellings).
 */
import { isIP } from "node:net";

export interface ParsedIp {
  family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  bytes: Uint8Array;
  /** The canonical spelling, unbracketed. */
  canonical: string;
}

/**
 * `address` as bytes and canonical text, or `undefined` when it is not an IP literal. A zone
 * (`fe80::1%eth0`) is dropped: it selects an interface, not an address, and every zoned
 * address is link-local or multicast anyway.
 */
export function parseIp(address: string): ParsedIp | undefined {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const unzoned = bare.includes("%") ? bare.slice(0, bare.indexOf("%")) : bare;
  const kind = isIP(unzoned);
  if (kind === 4) return parseIpv4(unzoned);
  if (kind === 6) return parseIpv6(unzoned);
  return undefined;
}

function parseIpv4(address: string): ParsedIp | undefined {
  // isIP accepts only dotted quads of 0–255 without leading zeros, so this is exact.
  const bytes = Uint8Array.from(address.split(".").map(Number));
  return bytes.length === 4 ? { family: 4, bytes, canonical: formatIpv4(bytes) } : undefined;
}

function parseIpv6(address: string): ParsedIp | undefined {
  let printed: string;
  try {
    // URL does the hard part (embedded dotted quads, `::` expansion, shortest form).
    printed = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const halves = printed.split("::");
  const head = halves[0] === "" ? [] : (halves[0] ?? "").split(":");
  const tail = halves.length > 1 && halves[1] !== "" ? (halves[1] ?? "").split(":") : [];
  const zeros = halves.length > 1 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array<string>(zeros).fill("0"), ...tail].map((g) => parseInt(g, 16));
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return undefined;
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return { family: 6, bytes, canonical: printed };
}

export function formatIpv4(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, 4)).join(".");
}

export interface Cidr {
  family: 4 | 6;
  bytes: Uint8Array;
  bits: number;
}

/** Whether `bytes` lies in `cidr` (its first `cidr.bits` bits are the prefix's). */
export function inCidr(bytes: Uint8Array, cidr: Cidr): boolean {
  if (bytes.length !== (cidr.family === 4 ? 4 : 16)) return false;
  for (let i = 0; i < cidr.bits; i += 8) {
    const take = Math.min(8, cidr.bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((((bytes[i / 8] ?? 0) ^ (cidr.bytes[i / 8] ?? 0)) & mask) !== 0) return false;
  }
  return true;
}

/** `"10.0.0.0/8"` or `"fe80::/10"` → prefix bytes and length. */
export function parseCidr(cidr: string): Cidr {
  const [address = "", bits = ""] = cidr.split("/");
  const parsed = parseIp(address);
  if (parsed === undefined || !/^\d+$/.test(bits)) throw new Error(`bad CIDR in address table: ${cidr}`);
  return { family: parsed.family, bytes: parsed.bytes, bits: Number(bits) };
}
