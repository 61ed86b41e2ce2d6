/**
 * Secrets out of what the plugin sees. Echo services (httpbin's /headers, /anything) and
 * error pages reflect the request's Authorization header; without this the plugin would read
 * the credential the grant attached. The value is replaced as sent and in the encodings a
 * reflection commonly uses (see ../secret-forms.ts: JSON-escaped, percent-encoded, hex,
 * base64, base64url). A server that transforms the value otherwise can still show it.
 */
import { secretForms } from "../secret-forms.js";

export { secretForms };
export const REDACTED = "[REDACTED]";
const REDACTED_BYTES = Buffer.from(REDACTED);

export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) for (const form of secretForms(secret)) out = out.split(form).join(REDACTED);
  return out;
}

/**
 * Redacts every form of every secret in `body`. When the body was cut at the size cap, a
 * secret may be cut too: a tail that is the start of one (4 bytes or more) is redacted as well.
 */
export function redactBytes(body: Uint8Array, secrets: readonly string[], options: { truncated?: boolean } = {}): Uint8Array {
  if (secrets.length === 0) return body;
  let out = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  for (const secret of secrets) {
    for (const form of secretForms(secret)) out = replaceAll(out, Buffer.from(form));
  }
  if (options.truncated) out = redactCutTail(out, secrets);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

function replaceAll(haystack: Buffer, needle: Buffer): Buffer {
  let at = haystack.indexOf(needle);
  if (at === -1) return haystack;
  const parts: Buffer[] = [];
  let from = 0;
  while (at !== -1) {
    parts.push(haystack.subarray(from, at), REDACTED_BYTES);
    from = at + needle.length;
    at = haystack.indexOf(needle, from);
  }
  parts.push(haystack.subarray(from));
  return Buffer.concat(parts);
}

function redactCutTail(body: Buffer, secrets: readonly string[]): Buffer {
  let cut = body.length;
  for (const secret of secrets) {
    for (const form of secretForms(secret)) {
      const bytes = Buffer.from(form);
      for (let n = Math.min(bytes.length - 1, body.length); n >= Math.min(4, bytes.length - 1) && n > 0; n--) {
        if (body.subarray(body.length - n).equals(bytes.subarray(0, n))) {
          cut = Math.min(cut, body.length - n);
          break;
        }
      }
    }
  }
  return cut === body.length ? body : Buffer.concat([body.subarray(0, cut), REDACTED_BYTES]);
}
