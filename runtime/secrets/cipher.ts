import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { KeyObject } from "node:crypto";

/** What one sealed secret is stored as. */
export interface Sealed {
  readonly nonce: Uint8Array;
  readonly ciphertext: Uint8Array;
  readonly tag: Uint8Array;
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The additional authenticated data: a format label and the secret's name. Binding the name means
 * a ciphertext copied onto another name's row fails to open instead of yielding the wrong secret
 * under the right name; the label lets a later format change refuse old rows on purpose.
 */
function aad(name: string): Buffer {
  return Buffer.from(`clawhive secret v1\0${name}`, "utf8");
}

/**
 * AES-256-GCM with a fresh random 96-bit nonce per write (NIST SP 800-38D §8.2.2). Random nonces
 * stay safe for up to 2^32 encryptions under one key; secrets are written far less often.
 */
export function seal(key: KeyObject, secret: { readonly name: string; readonly value: string }): Sealed {
  const { name, value } = secret;
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(name));
  const ciphertext = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
  return { nonce, ciphertext, tag: cipher.getAuthTag() };
}

/**
 * The plaintext, or undefined when the sealed value does not authenticate (wrong key, wrong name,
 * altered bytes). Never throws on bad input: the caller turns undefined into a clear error.
 */
export function unseal(key: KeyObject, sealed: Sealed & { readonly name: string }): string | undefined {
  const { name } = sealed;
  if (sealed.nonce.length !== NONCE_BYTES || sealed.tag.length !== TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, sealed.nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(name));
    decipher.setAuthTag(sealed.tag);
    const plain = Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]);
    const text = plain.toString("utf8");
    plain.fill(0);
    return text;
  } catch {
    return undefined;
  }
}
