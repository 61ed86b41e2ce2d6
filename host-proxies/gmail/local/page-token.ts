/**
 * The local backend's page tokens: an offset into the sorted listing, bound to the search that
 * made it (a token from another label or query is refused, not reinterpreted). Mail arriving
 * between pages shifts the offset, as it can with Gmail's own tokens.
 */
import { createHash } from "node:crypto";
import { HostProxyError } from "../../types.js";

const TOKEN = /^([0-9a-f]{12})\.(\d{1,9})$/;

export function searchFingerprint(label: string, query: string): string {
  return createHash("sha256").update(`${label}\0${query}`).digest("hex").slice(0, 12);
}

export function encodePageToken(fingerprint: string, offset: number): string {
  return `${fingerprint}.${offset}`;
}

/** The offset a token continues from; 0 without a token. Throws `invalid-input` for a foreign one. */
export function decodePageToken(token: string | undefined, fingerprint: string): number {
  if (token === undefined || token === "") return 0;
  const m = TOKEN.exec(token);
  if (m === null || m[1] !== fingerprint) throw HostProxyError.invalidInput("gmail: pageToken: not a token from this label and query");
  return Number(m[2]);
}
