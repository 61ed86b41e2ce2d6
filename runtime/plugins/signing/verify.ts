import { PluginError } from "../../errors.js";
import { sha256 } from "../artifact.js";
import { parsePublicKey } from "./key.js";
import { parseSignature, signatureHolds, SIGNATURE_FILE } from "./signature.js";
import type { TrustedKeys } from "./trust.js";

/** What an install learnt of a package's signature. */
export type SignatureVerdict =
  /** Signed by a key the operator trusts for the manifest's publisher. */
  | { status: "signed"; keyId: string; publisher: string }
  /** No signature, and none was required (a local package of a publisher with no trusted key). */
  | { status: "unsigned" }
  /** Refused for `code`, installed all the same because a person acknowledged it (`--allow-unsigned`). */
  | { status: "acknowledged"; code: string; message: string };

/** What is checked: the plugin.json text and component digest the signature must name. */
export interface SignedContent {
  manifestText: string;
  sha256: string;
  publisher: string;
  origin: string;
  /** The signature file's bytes, when the package carries one. */
  signature?: Uint8Array;
  /** A registry's artifact: must be signed (a local package only when its publisher has trusted keys). */
  signatureRequired?: boolean;
}

/**
 * Decides on a package's signature: valid, by a trusted, unrevoked key of the manifest's
 * publisher, over this manifest text and this component. A package that fails (unsigned where a
 * signature is required, or wrongly signed anywhere) is refused unless `allowUnsigned`, which
 * turns the refusal into an `acknowledged` verdict the install's audit record carries.
 */
export async function checkSignature(content: SignedContent, keys: TrustedKeys, options: { allowUnsigned?: boolean } = {}): Promise<SignatureVerdict> {
  try {
    return await verdictOf(content, keys);
  } catch (error) {
    if (!(error instanceof PluginError) || options.allowUnsigned !== true) throw error;
    return { status: "acknowledged", code: error.code, message: error.message };
  }
}

const ACK = "; install it anyway only if you trust where it came from: --allow-unsigned (allow_unsigned: true), which is audited";

async function verdictOf(content: SignedContent, keys: TrustedKeys): Promise<SignatureVerdict> {
  const where = `${content.origin}: ${SIGNATURE_FILE}`;
  if (content.signature === undefined) {
    if (content.signatureRequired === true) throw new PluginError("plugin_unsigned", `${content.origin}: the plugin is not signed${ACK}`);
    if (await keys.knowsPublisher(content.publisher)) {
      throw new PluginError("plugin_unsigned", `${content.origin}: publisher ${content.publisher} signs its plugins with a trusted key, but this one is not signed${ACK}`);
    }
    return { status: "unsigned" };
  }
  const signature = parseSignature(content.signature, where);
  if (signature.manifest_sha256 !== sha256(Buffer.from(content.manifestText, "utf8")) || signature.component_sha256 !== content.sha256) {
    throw new PluginError("signature_mismatch", `${where}: the signature is over another manifest or component than the ones shipped${ACK}`);
  }
  const key = await keys.get(signature.key_id);
  if (key === undefined) throw new PluginError("key_untrusted", `${where}: signed by key ${signature.key_id}, which is not trusted ('clawhive keys trust PUBLIC_KEY --publisher ${content.publisher}')${ACK}`);
  if (key.revokedAt !== null) throw new PluginError("key_revoked", `${where}: signed by key ${key.keyId}, revoked on ${new Date(key.revokedAt).toISOString()}${ACK}`);
  if (key.publisher !== content.publisher) {
    throw new PluginError("key_untrusted", `${where}: key ${key.keyId} is trusted for publisher ${key.publisher}, not ${content.publisher} (the manifest's publisher)${ACK}`);
  }
  if (!signatureHolds(signature, parsePublicKey(key.publicKey).key)) throw new PluginError("signature_invalid", `${where}: the signature does not verify with key ${key.keyId}${ACK}`);
  return { status: "signed", keyId: key.keyId, publisher: key.publisher };
}
