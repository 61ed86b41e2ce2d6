/** What an install reads and decides before verifying: its source (registry credentials from secrets) and its signature. */
import { InvalidInputError } from "../../errors.js";
import { checkSignature, type SignatureVerdict, type TrustedKeys } from "../signing/index.js";
import { readPackage, type PluginPackage, type ReadPackageOptions } from "./package.js";

export interface InstallSourceOptions extends Omit<ReadPackageOptions, "cacheDir" | "onProgress"> {
  /** For an oci:// source: the secret holding the registry's `username:password`. */
  registrySecret?: string;
}

/** A person's acknowledgement that an unsigned or wrongly signed plugin may be installed (audited). */
export interface SignatureOptions {
  allowUnsigned?: boolean;
}

/** Reads a source, with the registry credentials its secret holds. */
export async function readSource(
  source: string,
  options: InstallSourceOptions,
  context: { cacheDir: string; onProgress?: (line: string) => void; secretValue?: (name: string) => Promise<string> },
): Promise<PluginPackage> {
  const { registrySecret, ...read } = options;
  const registry = registrySecret === undefined ? read.registry : { ...read.registry, credentials: await credentials(registrySecret, context.secretValue) };
  return readPackage(source, { ...read, ...(registry === undefined ? {} : { registry }), cacheDir: context.cacheDir, ...(context.onProgress ? { onProgress: context.onProgress } : {}) });
}

async function credentials(name: string, secretValue: ((name: string) => Promise<string>) | undefined): Promise<string> {
  if (secretValue === undefined) throw new InvalidInputError("registry_secret: this runtime has no secrets to read registry credentials from", { field: "registry_secret" });
  const value = await secretValue(name);
  if (!value.includes(":")) throw new InvalidInputError(`registry_secret: secret ${name} must hold username:password`, { field: "registry_secret" });
  return value;
}

/** The package's signature decided (refused unless acknowledged); the runtime's own plugins are not signed. */
export async function signatureOf(pkg: PluginPackage, keys: TrustedKeys, options: { firstParty?: boolean } & SignatureOptions): Promise<SignatureVerdict | undefined> {
  if (options.firstParty === true) return undefined;
  const { signature, signatureRequired } = pkg;
  return checkSignature(
    { manifestText: pkg.manifestText, sha256: pkg.sha256, publisher: pkg.manifest.publisher, origin: pkg.origin, ...(signature === undefined ? {} : { signature }), ...(signatureRequired === true ? { signatureRequired } : {}) },
    keys,
    { allowUnsigned: options.allowUnsigned === true },
  );
}

/** An install's audit reason: its action, or the signature refusal a person acknowledged. */
export function reasonOf(result: { action: string; signature?: SignatureVerdict }): string {
  return result.signature?.status === "acknowledged" ? `${result.action}, acknowledged ${result.signature.code}` : result.action;
}
