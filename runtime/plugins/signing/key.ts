import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { InvalidInputError } from "../../errors.js";
import { sha256 } from "../artifact.js";

/** How a publisher's public key is written: `ed25519:` and the 32 raw bytes in base64. */
export const PUBLIC_KEY_PREFIX = "ed25519:";
/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410 §4): the raw key follows it. */
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export interface PublisherKeyPair {
  /** PKCS#8 PEM; kept by the publisher, never stored by the runtime. */
  privateKeyPem: string;
  publicKey: string;
  keyId: string;
}

/** A fresh Ed25519 key pair for signing plugins. */
export function generatePublisherKey(): PublisherKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const text = publicKeyText(publicKey);
  return { privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(), publicKey: text, keyId: keyIdOf(text) };
}

/** `ed25519:<base64>` of a public key object. */
export function publicKeyText(key: KeyObject): string {
  const der = key.export({ type: "spki", format: "der" });
  return PUBLIC_KEY_PREFIX + der.subarray(SPKI_PREFIX.length).toString("base64");
}

/**
 * A public key written as `ed25519:<base64>` (what `keys generate` prints), or a PEM public key.
 * Anything else is refused with what was expected.
 */
export function parsePublicKey(text: string, field = "public_key"): { key: KeyObject; text: string; keyId: string } {
  const trimmed = typeof text === "string" ? text.trim() : "";
  let raw: Buffer | undefined;
  if (trimmed.startsWith(PUBLIC_KEY_PREFIX)) {
    const body = trimmed.slice(PUBLIC_KEY_PREFIX.length);
    if (/^[A-Za-z0-9+/]{43}=$/.test(body)) raw = Buffer.from(body, "base64");
  } else if (trimmed.startsWith("-----BEGIN PUBLIC KEY-----")) {
    try {
      const key = createPublicKey(trimmed);
      if (key.asymmetricKeyType === "ed25519") raw = key.export({ type: "spki", format: "der" }).subarray(SPKI_PREFIX.length);
    } catch {
      raw = undefined;
    }
  }
  if (raw === undefined || raw.length !== 32) {
    throw new InvalidInputError(`${field}: expected an Ed25519 public key, ed25519:<44 base64 characters> (as 'clawhive keys generate' prints it) or a PEM public key`, { field });
  }
  const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: "der", type: "spki" });
  const normal = PUBLIC_KEY_PREFIX + raw.toString("base64");
  return { key, text: normal, keyId: keyIdOf(normal) };
}

/** A PKCS#8 PEM Ed25519 private key (a `keys generate` key file). */
export function parsePrivateKey(pem: string, origin: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new InvalidInputError(`${origin}: not a PEM private key (expected the key file 'clawhive keys generate' wrote)`, { field: "key" });
  }
  if (key.asymmetricKeyType !== "ed25519") throw new InvalidInputError(`${origin}: a ${key.asymmetricKeyType ?? "unknown"} key; plugins are signed with Ed25519 keys`, { field: "key" });
  return key;
}

/** A key's id: the first 32 hex digits of the sha256 of its `ed25519:` text. */
export function keyIdOf(publicKey: string): string {
  return sha256(Buffer.from(publicKey, "utf8")).slice(0, 32);
}
