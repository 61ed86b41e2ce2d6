import { createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import * as v from "valibot";
import { PluginError } from "../../errors.js";
import { sha256 } from "../artifact.js";
import { publicKeyText, keyIdOf } from "./key.js";

/** The file a signature travels in: `plugin.sig` beside plugin.json, or a layer of an OCI artifact. */
export const SIGNATURE_FILE = "plugin.sig";
export const SIGNATURE_SCHEMA = "clawhive.plugin-signature/v1";
export const MAX_SIGNATURE_BYTES = 4096;

const HEX64 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "expected 64 lowercase hex digits"));
export const SignatureSchema = v.strictObject({
  schema: v.literal(SIGNATURE_SCHEMA),
  key_id: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/, "expected 32 lowercase hex digits")),
  /** sha256 of plugin.json exactly as shipped (its bytes, not a re-serialisation). */
  manifest_sha256: HEX64,
  /** sha256 of plugin.wasm. */
  component_sha256: HEX64,
  /** Ed25519 over `signedMessage(manifest_sha256, component_sha256)`, base64. */
  signature: v.pipe(v.string(), v.regex(/^[A-Za-z0-9+/]{86}==$/, "expected a base64 Ed25519 signature")),
});
export type PluginSignature = v.InferOutput<typeof SignatureSchema>;

/**
 * The bytes signed: a fixed text naming both digests. The manifest's digest covers its name,
 * version, publisher, capabilities and the component's sha256; the component's is signed too so
 * that a signature can never be moved onto other code whatever the manifest says.
 */
export function signedMessage(manifestSha256: string, componentSha256: string): Buffer {
  return Buffer.from(`${SIGNATURE_SCHEMA}\nmanifest sha256:${manifestSha256}\ncomponent sha256:${componentSha256}\n`, "utf8");
}

/** Signs a plugin (its manifest text and its component's digest) with a publisher's private key. */
export function signPlugin(input: { manifestText: string; componentSha256: string }, privateKey: KeyObject): PluginSignature {
  const manifestSha256 = sha256(Buffer.from(input.manifestText, "utf8"));
  const publicKey = publicKeyText(createPublicKey(privateKey));
  const signature = sign(null, signedMessage(manifestSha256, input.componentSha256), privateKey).toString("base64");
  return { schema: SIGNATURE_SCHEMA, key_id: keyIdOf(publicKey), manifest_sha256: manifestSha256, component_sha256: input.componentSha256, signature };
}

/** The text of a signature file. */
export function signatureText(signature: PluginSignature): string {
  return `${JSON.stringify(signature, null, 2)}\n`;
}

/** A signature file's bytes, parsed and shape-checked (not yet verified). */
export function parseSignature(bytes: Uint8Array, origin: string): PluginSignature {
  if (bytes.length > MAX_SIGNATURE_BYTES) throw new PluginError("signature_invalid", `${origin}: ${bytes.length} bytes; a signature file has at most ${MAX_SIGNATURE_BYTES}`);
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    throw new PluginError("signature_invalid", `${origin}: not JSON`);
  }
  const parsed = v.safeParse(SignatureSchema, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = issue.path?.map((p) => String(p.key)).join(".") ?? "";
    throw new PluginError("signature_invalid", `${origin}: ${path === "" ? "" : `${path}: `}${issue.message}`);
  }
  return parsed.output;
}

/** Whether `signature` is `key`'s over exactly these digests. */
export function signatureHolds(signature: PluginSignature, key: KeyObject): boolean {
  try {
    return verify(null, signedMessage(signature.manifest_sha256, signature.component_sha256), key, Buffer.from(signature.signature, "base64"));
  } catch {
    return false;
  }
}
