/** Hand-made tar archives, so a test can write what no well-behaved packer would. */
import { gzipSync } from "node:zlib";

export interface TarEntry {
  path: string;
  /** Data written after the header (padded to 512); defaults to empty. */
  data?: Uint8Array | string;
  /** The size the header declares; defaults to the data's length. */
  size?: number;
  /** Type flag: "0" file, "1" hard link, "2" symlink, "3" char device, "5" dir, "6" fifo, "x" pax, "L" GNU long name, "S" sparse. */
  flag?: string;
  linkpath?: string;
  /** Break the checksum. */
  badChecksum?: boolean;
}

export function header(entry: TarEntry, size: number): Buffer {
  const b = Buffer.alloc(512);
  b.write(entry.path.slice(0, 100), 0, "utf8");
  b.write("0000644\0", 100);
  b.write("0000000\0", 108);
  b.write("0000000\0", 116);
  if (size < 8 ** 11) b.write(`${size.toString(8).padStart(11, "0")}\0`, 124);
  else {
    // GNU base-256 for sizes beyond 11 octal digits.
    b[124] = 0x80;
    let rest = BigInt(size);
    for (let i = 135; i > 124; i--, rest >>= 8n) b[i] = Number(rest & 0xffn);
  }
  b.write("00000000000\0", 136);
  b.write(entry.flag ?? "0", 156);
  if (entry.linkpath !== undefined) b.write(entry.linkpath.slice(0, 100), 157);
  b.write("ustar\0", 257);
  b.write("00", 263);
  b.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of b) sum += byte;
  if (entry.badChecksum) sum += 1;
  b.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return b;
}

/** A pax extended header entry carrying `records` for the entry after it. */
export function pax(records: Record<string, string>): TarEntry {
  const lines = Object.entries(records).map(([key, value]) => {
    const body = ` ${key}=${value}\n`;
    let length = body.length + 1;
    while (String(length).length + Buffer.byteLength(body) !== length) length = String(length).length + Buffer.byteLength(body);
    return `${length}${body}`;
  });
  return { path: "PaxHeader", flag: "x", data: lines.join("") };
}

/** The archive's bytes: entries, then the two zero blocks that end it (unless `end` is false). */
export function tar(entries: readonly TarEntry[], options: { end?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const data = typeof entry.data === "string" ? Buffer.from(entry.data) : Buffer.from(entry.data ?? new Uint8Array());
    parts.push(header(entry, entry.size ?? data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  if (options.end !== false) parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export function tgz(entries: readonly TarEntry[], options: { end?: boolean } = {}): Buffer {
  return gzipSync(tar(entries, options));
}

/** `mib` MiB of zeros as gzip members (RFC 1952 §2.2: members concatenate), cheap to build. */
export function zeroMembers(mib: number): Buffer {
  const one = gzipSync(Buffer.alloc(1 << 20), { level: 9 });
  return Buffer.concat(Array.from({ length: mib }, () => one));
}
