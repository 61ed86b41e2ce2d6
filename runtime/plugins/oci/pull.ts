import { PluginError } from "../../errors.js";
import { MAX_SIGNATURE_BYTES } from "../signing/index.js";
import { MAX_OCI_MANIFEST_BYTES, OCI_MANIFEST_TYPE, pluginLayers, type OciDescriptor } from "./layout.js";
import { formatOciReference, type OciReference } from "./reference.js";
import { digestOf, registryErrorText, RegistryTransport, type RegistryOptions } from "./transport.js";

export interface PullOptions extends RegistryOptions {
  /** Largest component blob (default: the installer's cap on a plugin file). */
  maxComponentBytes: number;
  /** Largest plugin.json. */
  maxManifestBytes: number;
  onProgress?: (line: string) => void;
}

/** A plugin artifact as pulled: every byte checked against the digest that named it. */
export interface PulledPlugin {
  /** The OCI manifest's digest: what a tag resolved to, or the digest asked for. */
  digest: string;
  /** `oci://REGISTRY/NAME[:TAG]@DIGEST`: pinned, whatever was asked. */
  pinned: string;
  manifestText: string;
  component: Uint8Array;
  signature?: Uint8Array;
}

/**
 * Pulls a plugin from a registry. A tag is resolved once, to the digest of the manifest bytes
 * received (a registry's Docker-Content-Digest that says otherwise is refused); a digest asked
 * for must be the digest of the bytes served. Each layer is fetched by its digest, refused when
 * its descriptor's size passes the cap, and checked against that digest and size.
 */
export async function pullPlugin(ref: OciReference, options: PullOptions): Promise<PulledPlugin> {
  const transport = new RegistryTransport(ref.registry, options);
  const asked = ref.digest ?? ref.tag!;
  const where = formatOciReference(ref);
  options.onProgress?.(`pulling ${where}`);
  const response = await transport.request("GET", `/v2/${ref.repository}/manifests/${asked}`, { headers: { accept: OCI_MANIFEST_TYPE }, maxBytes: MAX_OCI_MANIFEST_BYTES, what: "the manifest" });
  if (response.status !== 200) throw failed(where, "the manifest", registryErrorText(response), response.status);
  const digest = digestOf(response.bytes);
  if (ref.digest !== undefined && digest !== ref.digest) {
    throw new PluginError("registry_digest_mismatch", `${where}: the registry served a manifest whose digest is ${digest}, not the ${ref.digest} asked for; nothing was installed`);
  }
  const said = response.headers.get("docker-content-digest");
  if (said !== null && said !== digest) {
    throw new PluginError("registry_digest_mismatch", `${where}: the registry says the manifest is ${said}, but the bytes it served are ${digest}; nothing was installed`);
  }
  const pinnedRef = { ...ref, digest };
  const pinned = formatOciReference(pinnedRef);
  const layers = pluginLayers(response.bytes, pinned);
  const blob = (descriptor: OciDescriptor, max: number, what: string) => pullBlob(transport, { repository: ref.repository, descriptor, max, what, where: pinned });
  const manifestText = Buffer.from(await blob(layers.manifest, options.maxManifestBytes, "plugin.json")).toString("utf8");
  const signature = layers.signature === undefined ? undefined : await blob(layers.signature, MAX_SIGNATURE_BYTES, "plugin.sig");
  options.onProgress?.(`pulling ${pinned}: plugin.wasm, ${layers.component.size} bytes`);
  const component = await blob(layers.component, options.maxComponentBytes, "plugin.wasm");
  return { digest, pinned, manifestText, component, ...(signature === undefined ? {} : { signature }) };
}

async function pullBlob(transport: RegistryTransport, input: { repository: string; descriptor: OciDescriptor; max: number; what: string; where: string }): Promise<Uint8Array> {
  const { descriptor, max, what, where } = input;
  if (descriptor.size > max) throw new PluginError("blob_too_large", `${where}: ${what} is ${descriptor.size} bytes, more than the ${max} allowed; nothing was installed`);
  const response = await transport.request("GET", `/v2/${input.repository}/blobs/${descriptor.digest}`, { maxBytes: descriptor.size, what });
  if (response.status !== 200) throw failed(where, what, registryErrorText(response), response.status);
  const actual = digestOf(response.bytes);
  if (actual !== descriptor.digest || response.bytes.byteLength !== descriptor.size) {
    throw new PluginError("blob_tampered", `${where}: ${what}: the registry served ${response.bytes.byteLength} bytes with digest ${actual}, not the ${descriptor.size} bytes of ${descriptor.digest} the manifest names; nothing was installed`);
  }
  return response.bytes;
}

function failed(where: string, what: string, text: string, status: number): PluginError {
  if (status === 401 || status === 403) return new PluginError("registry_unauthorized", `${where}: ${what}: ${text}; give the registry's credentials (a secret holding username:password: --registry-secret NAME)`);
  if (status === 404) return new PluginError("registry_not_found", `${where}: ${what}: ${text}; no such plugin, tag or digest in that registry`);
  return new PluginError("registry_failed", `${where}: ${what}: ${text}`);
}

