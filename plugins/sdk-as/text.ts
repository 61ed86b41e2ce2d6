/** Turning bytes into text in the guest, as the TypeScript SDK's `decodeText` does (plugins/sdk/decode.ts). */

/** How far into the bytes to look for a NUL byte, as git and grep do. */
const SNIFF_BYTES: i32 = 8000;

/**
 * `bytes` as text, or null if they do not look like text: a NUL byte in the first 8000 bytes, or
 * ill-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF), which a
 * fatal `TextDecoder` refuses too. A UTF-8 byte order mark is dropped.
 */
export function decodeText(bytes: Uint8Array): string | null {
  const n = bytes.length;
  const sniff = n < SNIFF_BYTES ? n : SNIFF_BYTES;
  for (let i = 0; i < sniff; i++) if (unchecked(bytes[i]) == 0) return null;
  if (!wellFormed(bytes)) return null;
  let start = 0;
  if (n >= 3 && unchecked(bytes[0]) == 0xef && unchecked(bytes[1]) == 0xbb && unchecked(bytes[2]) == 0xbf) start = 3;
  return String.UTF8.decodeUnsafe(bytes.dataStart + <usize>start, <usize>(n - start), false);
}

function wellFormed(b: Uint8Array): bool {
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = <u32>unchecked(b[i]);
    if (c < 0x80) { i++; continue; }
    let need = 0;
    let lo: u32 = 0x80;
    let hi: u32 = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c == 0xe0) { need = 2; lo = 0xa0; }
    else if (c >= 0xe1 && c <= 0xec) need = 2;
    else if (c == 0xed) { need = 2; hi = 0x9f; }
    else if (c >= 0xee && c <= 0xef) need = 2;
    else if (c == 0xf0) { need = 3; lo = 0x90; }
    else if (c >= 0xf1 && c <= 0xf3) need = 3;
    else if (c == 0xf4) { need = 3; hi = 0x8f; }
    else return false;
    for (let k = 1; k <= need; k++) {
      if (i + k >= n) return false;
      const d = <u32>unchecked(b[i + k]);
      const min = k == 1 ? lo : 0x80;
      const max = k == 1 ? hi : 0xbf;
      if (d < min || d > max) return false;
    }
    i += need + 1;
  }
  return true;
}

/** `text` as UTF-8; a lone surrogate becomes U+FFFD, as `TextEncoder` writes it. */
export function encodeText(text: string): Uint8Array {
  return Uint8Array.wrap(String.UTF8.encode(wellFormedText(text), false));
}

/**
 * `text` with every lone surrogate replaced by U+FFFD (`String.prototype.toWellFormed`).
 * AssemblyScript's encoder would write a lone surrogate as three bytes no decoder accepts.
 */
export function wellFormedText(text: string): string {
  const n = text.length;
  let parts: string[] | null = null;
  let run = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < n) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) { i++; continue; }
    }
    if (parts == null) parts = new Array<string>();
    parts.push(text.substring(run, i));
    parts.push("\uFFFD");
    run = i + 1;
  }
  if (parts == null) return text;
  parts.push(text.substring(run));
  return parts.join("");
}
