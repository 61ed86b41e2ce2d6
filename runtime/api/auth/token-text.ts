import { createHash, randomBytes } from "node:crypto";

/**
 * A token is `chv_<id>_<secret>`: `id` is `tok_` and 16 hex digits (looked up, shown, never
 * secret), `secret` 32 random bytes in base64url (43 characters). The fixed lengths make the text
 * unambiguous although base64url has `_`. The `chv_` prefix lets secret scanners find leaked
 * tokens. Every character is in RFC 6750's token68 set, so it travels in `Authorization: Bearer`.
 */
export const TOKEN_ID_PATTERN = /^tok_[0-9a-f]{16}$/;
const TOKEN_PATTERN = /^chv_(tok_[0-9a-f]{16})_[A-Za-z0-9_-]{43}$/;
const SECRET_BYTES = 32;

export function newTokenId(): string {
  return `tok_${randomBytes(8).toString("hex")}`;
}

export function newTokenText(id: string): string {
  return `chv_${id}_${randomBytes(SECRET_BYTES).toString("base64url")}`;
}

/** The id inside a well-formed token text, or undefined for anything else. */
export function tokenIdOf(text: string): string | undefined {
  return TOKEN_PATTERN.exec(text)?.[1];
}

/**
 * What the store keeps: SHA-256 of the whole text (so a hash matches only with its own id). A
 * fast hash is right here, unlike for passwords: the secret has 256 random bits, nothing to
 * guess, so a slow KDF would only slow every request down.
 */
export function tokenDigest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
