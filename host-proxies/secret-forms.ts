/**
 * The spellings under which a secret value comes back from a server that echoes it: as sent,
 * JSON-escaped, percent-encoded (URI component, every byte, form encoding), hex in either case,
 * and base64 / base64url. Shared by the http proxy (what a plugin sees) and the audit log (what
 * is stored), so both redact the same forms.
 *
 * base64 encodes three bytes as four characters, so the encoding of a secret inside a longer
 * encoded text depends on where the secret starts modulo 3. For each of the three alignments
 * the form kept is the run of characters that depend on the secret's bytes alone; the one or
 * two characters at either edge that mix in neighbouring bytes are left (they carry at most a
 * few bits of the secret). An encoded form shorter than `MIN_ENCODED_LENGTH` is not used: it
 * would match unrelated text too often.
 *
 * Not caught: encodings wrapped across lines (MIME base64 at 76 columns), mixed-case hex,
 * encryption or hashing, and any transformation a server invents.
 */
export const MIN_ENCODED_LENGTH = 6;

/** Every form of `secret` worth looking for, longest first so one never hides inside another. */
export function secretForms(secret: string): string[] {
  if (secret === "") return [];
  const bytes = Buffer.from(secret, "utf8");
  const encoded = [
    encodeURIComponent(secret),
    encodeURIComponent(secret).replaceAll("%20", "+"),
    percentEveryByte(bytes, "upper"),
    percentEveryByte(bytes, "lower"),
    bytes.toString("hex"),
    bytes.toString("hex").toUpperCase(),
    ...alignedBase64(bytes, "base64"),
    ...alignedBase64(bytes, "base64url"),
  ].filter((form) => form.length >= MIN_ENCODED_LENGTH);
  const forms = new Set([secret, JSON.stringify(secret).slice(1, -1), ...encoded]);
  return [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

function percentEveryByte(bytes: Buffer, letterCase: "upper" | "lower"): string {
  const hex = bytes.toString("hex");
  let out = "";
  for (let i = 0; i < hex.length; i += 2) out += `%${letterCase === "upper" ? hex.slice(i, i + 2).toUpperCase() : hex.slice(i, i + 2)}`;
  return out;
}

/**
 * For each alignment k (the secret starting at byte k of a 3-byte group): the characters whose
 * 6 bits all come from the secret. Character i covers bits [6i, 6i+6) of the encoded stream.
 */
function alignedBase64(bytes: Buffer, encoding: "base64" | "base64url"): string[] {
  const forms: string[] = [];
  for (let k = 0; k < 3; k++) {
    const text = Buffer.concat([Buffer.alloc(k), bytes, Buffer.alloc(2)]).toString(encoding);
    const start = Math.ceil((8 * k) / 6);
    const end = Math.floor((8 * (k + bytes.length)) / 6);
    if (end > start) forms.push(text.slice(start, end));
  }
  return forms;
}
