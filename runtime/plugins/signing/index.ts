/** Plugin signatures: publisher keys (Ed25519), the signatures they make, and the keys an operator trusts. */
export { generatePublisherKey, keyIdOf, parsePrivateKey, parsePublicKey, publicKeyText } from "./key.js";
export type { PublisherKeyPair } from "./key.js";
export { MAX_SIGNATURE_BYTES, parseSignature, SIGNATURE_FILE, signatureText, signPlugin } from "./signature.js";
export type { PluginSignature } from "./signature.js";
export { keyMigrations, TrustedKeys } from "./trust.js";
export type { TrustedKey } from "./trust.js";
export { checkSignature } from "./verify.js";
export type { SignatureVerdict, SignedContent } from "./verify.js";
