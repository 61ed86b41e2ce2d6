/**
 * Bytes to text when the declared charset may be absent or wrong. Both backends meet the same
 * problem from two sides: raw 8-bit header bytes in a local file (RFC 6532 allows UTF-8; older
 * mail carries undeclared ISO-8859-1, e.g. the `L\xfctkebohle` fixture), and Gmail's
 * `format=full` bodies, which Gmail re-encodes to UTF-8 while keeping the original
 * `charset=` parameter (openclaw/gogcli#446, macro-inc/macro#6133).
 */

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * UTF-8 when the bytes are valid UTF-8; otherwise the declared charset, or windows-1252 (what
 * WHATWG decodes `iso-8859-1` as) when there is none or it is unknown. ISO-2022 text is 7-bit,
 * so it is valid UTF-8 too: an ESC byte with a declared charset goes to the declared decoder.
 */
export function decodeBytes(bytes: Uint8Array, declared?: string): string {
  const charset = declared?.trim().toLowerCase();
  if (charset !== undefined && charset !== "" && bytes.includes(0x1b)) {
    const text = tryDecode(bytes, charset);
    if (text !== undefined) return text;
  }
  try {
    return utf8.decode(bytes);
  } catch {
    return tryDecode(bytes, charset ?? "") ?? new TextDecoder("windows-1252").decode(bytes);
  }
}

function tryDecode(bytes: Uint8Array, charset: string): string | undefined {
  if (charset === "" || charset === "utf-8" || charset === "utf8") return undefined;
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The `charset` parameter of a Content-Type value, unquoted; undefined when absent. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(contentType ?? "");
  return match?.[1] ?? match?.[2];
}
