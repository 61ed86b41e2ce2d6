/**
 * The 512-byte header block of a tar archive (POSIX ustar, with the GNU and pax extensions a
 * packer may add), read field by field. Only what a plugin package needs is decoded: the
 * entry's path, size and type. Every number is checked: an archive is untrusted input.
 */

export const BLOCK = 512;

export type TarEntryType = "File" | "Directory" | "Link" | "SymbolicLink" | "PaxHeader" | "GlobalPaxHeader" | "GnuLongPath" | "GnuLongLink" | "Other";

export interface TarHeader {
  path: string;
  size: number;
  type: TarEntryType;
  /** The type flag as written, for messages. */
  flag: string;
}

const TYPES: Record<string, TarEntryType> = {
  "0": "File",
  "\0": "File",
  // Contiguous file: a regular file for every reader that does not special-case it.
  "7": "File",
  "1": "Link",
  "2": "SymbolicLink",
  "5": "Directory",
  x: "PaxHeader",
  g: "GlobalPaxHeader",
  L: "GnuLongPath",
  K: "GnuLongLink",
};

export function isZeroBlock(block: Uint8Array): boolean {
  for (let i = 0; i < BLOCK; i++) if (block[i] !== 0) return false;
  return true;
}

/** The header in `block`, or a reason it is not one (bad checksum, bad size field). */
export function parseHeader(block: Uint8Array): TarHeader | string {
  const stored = octal(block.subarray(148, 156));
  if (stored === undefined || stored !== checksum(block)) return "not a tar header (checksum mismatch)";
  const size = sizeField(block.subarray(124, 136));
  if (size === undefined) return "a header with an unreadable size field";
  const flag = String.fromCharCode(block[156] ?? 0);
  const name = text(block.subarray(0, 100));
  // ustar (POSIX.1-1988) splits a long path into prefix and name; GNU tar's "ustar  " does not.
  const ustar = text(block.subarray(257, 263)) === "ustar";
  const prefix = ustar ? text(block.subarray(345, 500)) : "";
  return { path: prefix === "" ? name : `${prefix}/${name}`, size, type: TYPES[flag] ?? "Other", flag };
}

/** Sum of the header's bytes with the checksum field read as spaces (POSIX.1 ustar). */
function checksum(block: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
  return sum;
}

/** An octal or, with the high bit set, a base-256 big-endian number (GNU); undefined if neither. */
function sizeField(field: Uint8Array): number | undefined {
  if (((field[0] ?? 0) & 0x80) === 0) return octal(field);
  // Negative base-256 values (0xff lead byte) are not sizes.
  if (field[0] === 0xff) return undefined;
  let value = (field[0] ?? 0) & 0x7f;
  for (let i = 1; i < field.length; i++) {
    value = value * 256 + (field[i] ?? 0);
    if (!Number.isSafeInteger(value)) return undefined;
  }
  return value;
}

function octal(field: Uint8Array): number | undefined {
  const digits = text(field).trim();
  if (digits === "") return 0;
  if (!/^[0-7]{1,21}$/.test(digits)) return undefined;
  const value = Number.parseInt(digits, 8);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** A NUL-terminated field as text (UTF-8: pax and modern packers write it). */
function text(field: Uint8Array): string {
  const end = field.indexOf(0);
  return Buffer.from(field.subarray(0, end === -1 ? field.length : end)).toString("utf8");
}

/**
 * The `path` and `size` records of a pax extended header (POSIX.1-2001 `pax`): lines of
 * `<length> <key>=<value>\n`, where length counts the whole line. A malformed line ends the
 * parse with a reason.
 */
export function parsePax(data: Uint8Array): { path?: string; size?: number } | string {
  const body = Buffer.from(data);
  const out: { path?: string; size?: number } = {};
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const length = space === -1 ? Number.NaN : Number(body.subarray(at, space).toString("latin1"));
    if (!Number.isSafeInteger(length) || length <= space - at + 1 || at + length > body.length || body[at + length - 1] !== 0x0a) {
      return "a malformed pax header record";
    }
    const record = body.subarray(space + 1, at + length - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq === -1) return "a malformed pax header record";
    const key = record.slice(0, eq);
    const value = record.slice(eq + 1);
    if (key === "path") out.path = value;
    if (key === "size") {
      if (!/^\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value))) return "a pax size record that is not a size";
      out.size = Number(value);
    }
    at += length;
  }
  return out;
}
