/** Turning bytes into text, with no host import: usable by a plugin of any world. */

/** How far into a file to look for a NUL byte, as git and grep do. */
const SNIFF_BYTES = 8000;

/**
 * `bytes` as text, or `undefined` if they do not look like text: a NUL byte in the first 8000
 * bytes, or invalid UTF-8. A UTF-8 byte order mark is dropped.
 */
export function decodeText(bytes: Uint8Array): string | undefined {
  const sniff = bytes.subarray(0, SNIFF_BYTES);
  if (sniff.includes(0)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
